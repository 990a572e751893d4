// Package nginx holds the shipped reverse-proxy configuration. Its tests run
// Debian's nginx with it in front of catalogd and a stand-in WordPress, with
// the assertions every shipped proxy shares (deploy/internal/proxytest), and,
// for the php-fpm server (phpfpm_test.go), in front of Debian's WordPress on
// php-fpm and a real catalogd.
package nginx_test

import (
	"regexp"
	"testing"

	"catalogd/deploy/internal/proxytest"
)

// The AI agents nginx recognizes are catalogd's list, no more, no less.
func TestAgentListMatchesCatalogd(t *testing.T) {
	proxytest.AgentListMatches(t, "catalogd-http.conf", regexp.MustCompile(`"~\*\(([^)]*)\)" 1;`))
}

func TestNginxInFront(t *testing.T) {
	bin := proxytest.Binary(t, "nginx", "/usr/sbin/nginx", "nginx")
	b := proxytest.Start(t)
	listen := proxytest.StartNginx(t, bin, ".", []string{"server 127.0.0.1:8080;", "server " + b.Catalogd + ";",
		"server wordpress:80;", "server " + b.WordPress + ";"},
		"catalogd-http.conf", "catalogd-upstream.conf", "catalogd-locations.conf", "catalogd-proxy.conf",
		"wordpress-location.conf", "site.conf")
	proxytest.Run(t, "http://"+listen, b, proxytest.Options{EdgeRateLimit: true})
}
