package api

import "testing"

func TestParseListQuery(t *testing.T) {
	tests := []struct {
		name   string
		values map[string][]string
		want   ListQuery
		code   string   // "" for no error
		params []string // every offending parameter
	}{
		{"defaults", nil, ListQuery{Page: 1, PerPage: 20}, "", nil},
		{"all set", map[string][]string{"page": {"3"}, "per_page": {"50"}, "category": {"jobs"}, "framework": {"qbox"}},
			ListQuery{Page: 3, PerPage: 50, Category: "jobs", Framework: "qbox"}, "", nil},
		{"leading zeros are base 10", map[string][]string{"page": {"007"}}, ListQuery{Page: 7, PerPage: 20}, "", nil},
		{"unknown parameters ignored", map[string][]string{"stock_status": {"instock"}}, ListQuery{Page: 1, PerPage: 20}, "", nil},
		{"empty page", map[string][]string{"page": {""}}, ListQuery{}, "invalid_page", []string{"page"}},
		{"signed page", map[string][]string{"page": {"+2"}}, ListQuery{}, "invalid_page", []string{"page"}},
		{"negative page", map[string][]string{"page": {"-1"}}, ListQuery{}, "invalid_page", []string{"page"}},
		{"zero page", map[string][]string{"page": {"0"}}, ListQuery{}, "invalid_page", []string{"page"}},
		{"fractional page", map[string][]string{"page": {"1.0"}}, ListQuery{}, "invalid_page", []string{"page"}},
		{"huge page", map[string][]string{"page": {"99999999999999999999"}}, ListQuery{}, "invalid_page", []string{"page"}},
		{"repeated page", map[string][]string{"page": {"1", "1"}}, ListQuery{}, "invalid_page", []string{"page"}},
		{"per_page over 50", map[string][]string{"per_page": {"51"}}, ListQuery{}, "invalid_per_page", []string{"per_page"}},
		{"per_page zero", map[string][]string{"per_page": {"0"}}, ListQuery{}, "invalid_per_page", []string{"per_page"}},
		{"per_page hex", map[string][]string{"per_page": {"0x10"}}, ListQuery{}, "invalid_per_page", []string{"per_page"}},
		{"empty category", map[string][]string{"category": {""}}, ListQuery{}, "invalid_category", []string{"category"}},
		{"unknown framework", map[string][]string{"framework": {"vrp"}}, ListQuery{}, "invalid_framework", []string{"framework"}},
		{"framework is case-sensitive", map[string][]string{"framework": {"ESX"}}, ListQuery{}, "invalid_framework", []string{"framework"}},
		{"first offender names the code", map[string][]string{"framework": {"x"}, "per_page": {"99"}, "page": {"a"}},
			ListQuery{}, "invalid_page", []string{"page", "per_page", "framework"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, problems := ParseListQuery(tt.values)
			if tt.code == "" {
				page, perPage := q.Paging()
				if len(problems) > 0 || page != tt.want.Page || perPage != tt.want.PerPage ||
					q.Category != tt.want.Category || q.Framework != tt.want.Framework {
					t.Fatalf("got %+v, %v; want %+v", q, problems, tt.want)
				}
				return
			}
			if "invalid_"+problems.First() != tt.code {
				t.Fatalf("problems = %v, first %q; want %s", problems, problems.First(), tt.code)
			}
			if len(problems) != len(tt.params) {
				t.Errorf("problems = %v, want %v", problems, tt.params)
			}
			for _, p := range tt.params {
				if problems[p] == "" {
					t.Errorf("no message for %s: %v", p, problems)
				}
			}
			if ParamHints[problems.First()] == "" {
				t.Error("no hint")
			}
			if got := q.Problems(); len(got) != len(problems) {
				t.Errorf("the query forgot its problems: Problems() = %v, want %v", got, problems)
			}
		})
	}
}
