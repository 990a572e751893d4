package wpopt

import "testing"

func TestSEOPluginSitemapSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		parse   func(string) (bool, error)
		raw     string
		want    bool
		wantErr bool
	}{
		{"Yoast: no wpseo option is its default, on", YoastSitemapOn, "", true, false},
		// As Yoast stores it (update_option of its settings array).
		{"Yoast: on", YoastSitemapOn, `a:3:{s:8:"tracking";b:0;s:18:"enable_xml_sitemap";b:1;s:16:"enable_index_now";b:1;}`, true, false},
		{"Yoast: switched off", YoastSitemapOn, `a:2:{s:8:"tracking";b:0;s:18:"enable_xml_sitemap";b:0;}`, false, false},
		{"Yoast: key missing is the default", YoastSitemapOn, `a:1:{s:8:"tracking";b:0;}`, true, false},
		{"Yoast: damaged", YoastSitemapOn, `a:1:{s:18:"enable_xml_sit`, true, true},
		{"Rank Math: no option lists no module", RankMathSitemapOn, "", false, false},
		// As Rank Math stores its module list (update_option of a list).
		{"Rank Math: sitemap module on", RankMathSitemapOn,
			`a:3:{i:0;s:12:"link-counter";i:1;s:7:"sitemap";i:2;s:12:"rich-snippet";}`, true, false},
		{"Rank Math: sitemap module off (array_diff leaves a gap)", RankMathSitemapOn,
			`a:2:{i:0;s:12:"link-counter";i:2;s:12:"rich-snippet";}`, false, false},
		{"Rank Math: damaged", RankMathSitemapOn, `a:1:{i:0;s:7:"sitem`, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.parse(tt.raw)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("got %v, %v; want %v, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
