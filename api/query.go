package api

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Frameworks are the values of the framework filter: the pa_framework
// attribute terms the shop sells for.
var Frameworks = []string{"esx", "qbcore", "qbox", "standalone"}

// Paging limits of the product list.
const (
	DefaultPerPage = 20
	MaxPerPage     = 50
	MaxSlugLength  = 200 // posts.post_name and terms.slug are varchar(200), in the stored form
)

// frameworkProblem is the message for a framework not in Frameworks.
var frameworkProblem = "framework must be one of " + strings.Join(Frameworks, ", ") + "."

// ValidFramework reports whether f is one of Frameworks.
func ValidFramework(f string) bool {
	for _, v := range Frameworks {
		if v == f {
			return true
		}
	}
	return false
}

// ListQuery selects a page of the product list. Zero Page and PerPage mean
// the defaults; empty Category and Framework mean no restriction.
type ListQuery struct {
	Page      int
	PerPage   int
	Category  string
	Framework string

	// problems are what ParseListQuery rejected, so that the server can
	// report them together with what only the catalog can tell (an
	// unknown category).
	problems Problems
}

// Problems are what is wrong with a request, a message per parameter.
type Problems map[string]string

// ParamOrder is the order in which an error's code names the first
// offending parameter.
var ParamOrder = []string{"page", "per_page", "category", "framework", "slug"}

// First is the first offending parameter in ParamOrder, "" for none.
func (p Problems) First() string {
	for _, name := range ParamOrder {
		if p[name] != "" {
			return name
		}
	}
	return ""
}

// ParamHints say what to send instead, per parameter.
var ParamHints = map[string]string{
	"page":      "Send page as a plain whole number from 1 up to total_pages, or leave it out for the first page.",
	"per_page":  fmt.Sprintf("Send per_page as a plain whole number from 1 to %d (default %d); larger pages are rejected, not clamped.", MaxPerPage, DefaultPerPage),
	"category":  "Use a slug from the categories endpoint.",
	"framework": "Use one of " + strings.Join(Frameworks, ", ") + ", or leave framework out.",
	"slug":      "Use the product's slug as the product list shows it: lowercase letters, digits, underscores and hyphens, other characters percent-encoded (or sent as UTF-8).",
}

// ParseListQuery reads the product list's parameters from query values,
// strictly: page and per_page are plain base-10 whole numbers (not empty,
// signed, fractional, huge or repeated) in range, category a non-empty slug
// (in its stored form, CanonicalSlug), framework one of Frameworks. Other
// parameters are ignored, as WordPress ignores them. The problems name every
// offending parameter; the query holds what was valid, so that whether an
// unknown category is a problem too can still be told.
func ParseListQuery(values map[string][]string) (ListQuery, Problems) {
	q := ListQuery{Page: 1, PerPage: DefaultPerPage}
	problems := Problems{}
	one := func(name string) (string, bool) {
		v, ok := values[name]
		if !ok {
			return "", false
		}
		if len(v) > 1 {
			problems[name] = name + " was given more than once; send it once."
			return "", false
		}
		return v[0], true
	}
	number := func(name string, min, max int, dst *int) {
		s, ok := one(name)
		if !ok {
			return
		}
		n, err := strconv.Atoi(s)
		if err != nil || !digitsRE.MatchString(s) || n < min || max > 0 && n > max {
			msg := fmt.Sprintf("%s must be a plain whole number of at least %d.", name, min)
			if max > 0 {
				msg = fmt.Sprintf("%s must be a plain whole number from %d to %d.", name, min, max)
			}
			problems[name] = msg
			return
		}
		*dst = n
	}
	number("page", 1, 0, &q.Page)
	number("per_page", 1, MaxPerPage, &q.PerPage)
	if s, ok := one("category"); ok {
		if s == "" || len(s) > MaxSlugLength || !utf8.ValidString(s) {
			problems["category"] = "category must be a category slug from the categories endpoint."
		} else if canonical, ok := CanonicalSlug(s); ok {
			q.Category = canonical // as listed or decoded, the stored form
		} else {
			// Not a spelling SlugPattern knows: looked up exactly as sent,
			// so a stored slug outside the pattern still filters.
			q.Category = s
		}
	}
	if s, ok := one("framework"); ok {
		if !ValidFramework(s) {
			problems["framework"] = frameworkProblem
		} else {
			q.Framework = s
		}
	}
	if len(problems) > 0 {
		q.problems = problems
	}
	return q, problems
}

// Check returns the problems of the query: those ParseListQuery found, and
// the ranges of a query built in code, in the same words.
func (q ListQuery) Check() Problems {
	problems := Problems{}
	for k, v := range q.problems {
		problems[k] = v
	}
	if q.Page < 1 && problems["page"] == "" {
		problems["page"] = "page must be a plain whole number of at least 1."
	}
	if (q.PerPage < 1 || q.PerPage > MaxPerPage) && problems["per_page"] == "" {
		problems["per_page"] = fmt.Sprintf("per_page must be a plain whole number from 1 to %d.", MaxPerPage)
	}
	if q.Framework != "" && !ValidFramework(q.Framework) && problems["framework"] == "" {
		problems["framework"] = frameworkProblem
	}
	return problems
}

var digitsRE = regexp.MustCompile(`^[0-9]+$`)

// SlugProblem is the message for a product slug CanonicalSlug rejects.
func SlugProblem(slug string) string {
	if len(slug) > MaxSlugLength || utf8.ValidString(slug) && slugRE.MatchString(slug) {
		return fmt.Sprintf("slug must be at most %d characters, percent-encoded as the product list shows it.", MaxSlugLength)
	}
	return "slug must be lowercase letters, digits, underscores, hyphens and percent-encoded (or UTF-8) characters."
}
