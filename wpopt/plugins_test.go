package wpopt

import (
	"reflect"
	"testing"
)

func TestParsePluginList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, raw string
		want      []string
		wantErr   bool
	}{
		{"missing option", "", nil, false},
		{"empty list", "a:0:{}", nil, false},
		// As update_option() stores it after activate_plugin().
		{"two plugins", `a:2:{i:0;s:21:"polylang/polylang.php";i:1;s:27:"woocommerce/woocommerce.php";}`,
			[]string{"polylang/polylang.php", "woocommerce/woocommerce.php"}, false},
		{"keys with gaps after a deactivation", `a:1:{i:1;s:27:"woocommerce/woocommerce.php";}`,
			[]string{"woocommerce/woocommerce.php"}, false},
		{"truncated", `a:1:{i:0;s:21:"polylang/pol`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePluginList(tt.raw)
			if (err != nil) != tt.wantErr || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParsePluginList = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
