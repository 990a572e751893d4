package httpapi

// AIAgents are the user-agent tokens of the AI agents and crawlers that the
// reverse proxy hands to catalogd's site-wide JSON 404 instead of the
// site's HTML page. This is the one list: the README prints it for the
// proxy's configuration, and deploy/internal/proxytest checks the proxy's copy
// against it.
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
