package proctest

import (
	"fmt"
	"os"
	"path/filepath"
)

// SecretVolume is a directory laid out as the kubelet mounts a Kubernetes
// secret: each version of it in a directory of its own, ..data a link to
// the current one, and the file a link through ..data. An update swaps
// ..data at once, so the file's path stays and its target changes.
type SecretVolume struct {
	dir, name string
	version   int
}

// NewSecretVolume writes the first version of a secret volume in dir (an
// empty directory) holding the file name.
func NewSecretVolume(dir, name, content string) (*SecretVolume, error) {
	v := &SecretVolume{dir: dir, name: name}
	if err := v.write(content); err != nil {
		return nil, err
	}
	if err := os.Symlink(v.current(), filepath.Join(dir, "..data")); err != nil {
		return nil, err
	}
	return v, os.Symlink(filepath.Join("..data", name), v.Path())
}

// Path is the file's path, as a pod reads it.
func (v *SecretVolume) Path() string { return filepath.Join(v.dir, v.name) }

// Update puts content in the file as the kubelet does: a new version's
// directory, a new link renamed over ..data, the old directory removed.
func (v *SecretVolume) Update(content string) error {
	old := v.current()
	v.version++
	if err := v.write(content); err != nil {
		return err
	}
	tmp := filepath.Join(v.dir, "..data_tmp")
	if err := os.Symlink(v.current(), tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(v.dir, "..data")); err != nil {
		return err
	}
	return os.RemoveAll(filepath.Join(v.dir, old))
}

// Rewrite puts content in the file as systemd or an agent does: the file
// the current version holds, written in place through the link.
func (v *SecretVolume) Rewrite(content string) error {
	return os.WriteFile(filepath.Join(v.dir, v.current(), v.name), []byte(content), 0o600)
}

func (v *SecretVolume) current() string {
	return fmt.Sprintf("..2026_11_25_12_00_0%d.%d", v.version%10, v.version)
}

func (v *SecretVolume) write(content string) error {
	if err := os.Mkdir(filepath.Join(v.dir, v.current()), 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(v.dir, v.current(), v.name), []byte(content), 0o600)
}
