package httpapi

import (
	"mime"
	"net/http"
	"strings"
)

// AIAgents are the user-agent tokens of the AI agents and crawlers that get
// the site-wide JSON 404 instead of the site's HTML page. This is the one
// list; the README prints it for the reverse proxy's configuration.
var AIAgents = []string{
	"GPTBot", "ChatGPT-User", "OAI-SearchBot", // OpenAI
	"ClaudeBot", "Claude-User", "Claude-SearchBot", "anthropic-ai", // Anthropic
	"PerplexityBot", "Perplexity-User", // Perplexity
	"CCBot",                                // Common Crawl
	"Amazonbot",                            // Amazon
	"Google-Extended", "Applebot-Extended", // AI training opt-outs that also fetch
	"Bytespider",                                 // ByteDance
	"meta-externalagent", "meta-externalfetcher", // Meta
	"cohere-ai", "MistralAI-User", "DuckAssistBot", "YouBot",
}

// WantsJSON reports whether a request wants JSON rather than a web page:
// its Accept prefers application/json (or a +json type) over HTML, or its
// user agent is a known AI agent's. Browsers, which prefer HTML, do not.
func WantsJSON(r *http.Request) bool {
	ua := strings.ToLower(r.UserAgent())
	for _, a := range AIAgents {
		if strings.Contains(ua, strings.ToLower(a)) {
			return true
		}
	}
	jsonQ, htmlQ := acceptQ(r.Header.Values("Accept"))
	return jsonQ > 0 && jsonQ > htmlQ
}

// acceptQ returns the highest quality an Accept header gives JSON and HTML
// by name (wildcards do not count: */* says nothing about a preference).
func acceptQ(accept []string) (jsonQ, htmlQ float64) {
	for _, line := range accept {
		for _, part := range strings.Split(line, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			q := 1.0
			if v, ok := params["q"]; ok {
				if q, ok = parseQ(v); !ok {
					continue // a malformed weight says nothing
				}
			}
			switch {
			case mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"):
				jsonQ = max(jsonQ, q)
			case mt == "text/html" || mt == "application/xhtml+xml":
				htmlQ = max(htmlQ, q)
			}
		}
	}
	return jsonQ, htmlQ
}
