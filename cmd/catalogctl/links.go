package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// pagingRels are the link relations a page of the product list may carry.
var pagingRels = map[string]bool{"first": true, "prev": true, "next": true, "last": true}

// pagingLinks reads the paging relations of a response's Link header
// (RFC 8288: one or several fields, each a comma-separated list of
// <URI-reference>; param=value…; rel may list several relations), each
// resolved against the URL the response came from. nil means the response
// has no paging link at all; the first link of a relation counts.
func pagingLinks(h http.Header, from string) (map[string]*url.URL, error) {
	base, err := url.Parse(from)
	if err != nil {
		return nil, err
	}
	var links map[string]*url.URL
	for _, field := range h.Values("Link") {
		for field = strings.TrimSpace(field); field != ""; field = strings.TrimSpace(field) {
			if field[0] != '<' {
				return nil, fmt.Errorf("GET %s: malformed Link header %q", from, field)
			}
			end := strings.IndexByte(field, '>')
			if end < 0 {
				return nil, fmt.Errorf("GET %s: malformed Link header %q", from, field)
			}
			target := field[1:end]
			params, rest := splitLinkParams(field[end+1:])
			field = rest
			for _, rel := range strings.Fields(strings.ToLower(params["rel"])) {
				if !pagingRels[rel] || links[rel] != nil {
					continue
				}
				u, err := base.Parse(target)
				if err != nil {
					return nil, fmt.Errorf("GET %s: Link rel=%q: %w", from, rel, err)
				}
				if links == nil {
					links = map[string]*url.URL{}
				}
				links[rel] = u
			}
		}
	}
	return links, nil
}

// splitLinkParams reads one link-value's parameters (`; name=value` or
// `; name="quoted, value"`) up to the comma that ends it, and returns
// them with the text after that comma.
func splitLinkParams(s string) (map[string]string, string) {
	params := map[string]string{}
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return params, ""
		}
		if s[0] == ',' {
			return params, s[1:]
		}
		if s[0] != ';' {
			// Not a parameter: skip to the next link-value.
			if i := strings.IndexByte(s, ','); i >= 0 {
				return params, s[i+1:]
			}
			return params, ""
		}
		s = strings.TrimLeft(s[1:], " \t")
		i := strings.IndexAny(s, "=;,")
		if i < 0 || s[i] != '=' {
			name := s
			if i >= 0 {
				name, s = s[:i], s[i:]
			} else {
				s = ""
			}
			params[strings.ToLower(strings.TrimSpace(name))] = ""
			continue
		}
		name := strings.ToLower(strings.TrimSpace(s[:i]))
		s = strings.TrimLeft(s[i+1:], " \t")
		var val string
		if strings.HasPrefix(s, `"`) {
			var b strings.Builder
			j := 1
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				b.WriteByte(s[j])
			}
			val, s = b.String(), s[min(j+1, len(s)):]
		} else {
			j := strings.IndexAny(s, ";,")
			if j < 0 {
				j = len(s)
			}
			val, s = strings.TrimSpace(s[:j]), s[j:]
		}
		if _, dup := params[name]; !dup {
			params[name] = val
		}
	}
}
