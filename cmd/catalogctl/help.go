package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// commandDocs is the text of each command's help, around its options.
var commandDocs = map[string]struct{ usage, about, examples string }{
	"catalog": {
		usage: "catalogctl [global options] catalog [--json]",
		about: "Shows the catalog index: the shop's name and description, its currency, how many\n" +
			"products are in the catalog and published, how many categories, and the API's\n" +
			"endpoints.",
		examples: "catalogctl catalog\n" +
			"catalogctl --base-url https://shop.example/wp-json/shop/v1 catalog --json",
	},
	"categories": {
		usage: "catalogctl [global options] categories [--json]",
		about: "Lists the categories that hold a visible product, as a table: the slug, which\n" +
			"products --category takes, the name, how many products it holds (its\n" +
			"subcategories' included) and its parent's slug (- for a top-level one).",
		examples: "catalogctl categories\n" +
			"catalogctl categories --json | jq -r '.categories[].slug'",
	},
	"products": {
		usage: "catalogctl [global options] products [--framework F] [--category C]\n" +
			"                                  [--search TEXT] [--sort BY[:ORDER]]\n" +
			"                                  [--min-price P] [--max-price P]\n" +
			"                                  [--in-stock[=false]] [--on-sale[=false]]\n" +
			"                                  [--facets] [--per-page N] [--page N]\n" +
			"                                  [--all] [--json]",
		about: "Lists the catalog's products as a table: slug, name, price, stock, whether the\n" +
			"shop sells it now (BUY), frameworks; then the page and the total. Long names and\n" +
			"slugs are cut with … to fit 80 columns; --json has them whole.\n\n" +
			"--search finds products as the shop's search box does (quote several words);\n" +
			"--sort orders them as its \"Sort by\" does: price ascending, price:desc\n" +
			"descending, relevance (with --search) best first. --min-price and --max-price\n" +
			"keep the products whose price range overlaps theirs. With --facets the table\n" +
			"is followed by the counts per category, framework, stock and sale, and the\n" +
			"price range, over every page of the list.\n\n" +
			"--all asks for 50 products a page and follows each page's Link rel=\"next\"\n" +
			"until none, waiting out the rate-limit window, and prints one table (with\n" +
			"--json one object with every product and the total). On a terminal it shows\n" +
			"\"page 3/12…\" on stderr. It fails (exit 2) when a next link leaves the API,\n" +
			"repeats a page or goes past total_pages.",
		examples: "catalogctl products\n" +
			"catalogctl products --framework qbox --per-page 5\n" +
			"catalogctl products --category police --per-page 5 --page 2\n" +
			"catalogctl products --search \"police radar\" --sort relevance\n" +
			"catalogctl products --sort price:desc --max-price 20 --in-stock --per-page 5\n" +
			"catalogctl products --on-sale --facets --per-page 3\n" +
			"catalogctl products --all --json > products.json",
	},
	"product": {
		usage: "catalogctl [global options] product <slug> [--json]",
		about: "Shows one product: name, URL, price, regular price, sale, stock, whether it can\n" +
			"be bought, categories, frameworks, image, summary and description. The slug is\n" +
			"the English one, as the product list shows it (percent-encoded characters may\n" +
			"also be typed decoded); exit code 3 when none has it.",
		examples: "catalogctl product dispatch-system\n" +
			"catalogctl product dispatch-system --json | jq -r .price",
	},
}

// toolHelp prints catalogctl's help to stdout: it was asked for.
func (c *cli) toolHelp(global *flag.FlagSet) {
	w := c.stdout
	fmt.Fprintf(w, "catalogctl %s is the command-line client of catalogd, the read-only JSON API\n", version)
	fmt.Fprint(w, "over a WooCommerce shop's catalog.\n\n")
	fmt.Fprint(w, "Usage:\n  catalogctl [global options] <command> [options] [arguments]\n\n")
	fmt.Fprint(w, "Commands:\n")
	for _, cmd := range commands {
		fmt.Fprintf(w, "  %-26s %s\n", cmd.synopsis, cmd.summary)
	}
	fmt.Fprint(w, "\nGlobal options (before the command):\n")
	writeOptions(w, global)
	fmt.Fprintf(w, "\nEvery request sends the User-Agent catalogctl/%s, followed by --user-agent.\n", version)
	fmt.Fprint(w, "Requests answered 429 or 503 are retried at most 3 times, after Retry-After\n"+
		"seconds (at most 60 each).\n")
	fmt.Fprint(w, "\nExamples:\n")
	for _, ex := range []string{
		"catalogctl catalog",
		"catalogctl categories",
		"catalogctl products --framework qbox --per-page 5",
		"catalogctl products --category police",
		"catalogctl products --search radar --sort price:desc",
		"catalogctl product dispatch-system",
		"CATALOG_BASE_URL=https://shop.example/wp-json/shop/v1 catalogctl catalog",
		"catalogctl products --all --json > products.json",
		"catalogctl --timeout 3s --user-agent my-script/2 product k9-unit --json",
		"catalogctl products --help",
	} {
		fmt.Fprintf(w, "  %s\n", ex)
	}
	fmt.Fprint(w, "\nExit codes:\n"+
		"  0  ok\n"+
		"  1  usage error; no request was sent\n"+
		"  2  the request failed: network, timeout, 5xx, 400, not the API's JSON\n"+
		"  3  the resource does not exist (404)\n")
}

// commandHelp prints a command's help to stdout.
func (c *cli) commandHelp(fs *flag.FlagSet) {
	w := c.stdout
	h := commandDocs[fs.Name()]
	fmt.Fprintf(w, "Usage:\n  %s\n\n%s\n\nOptions:\n", h.usage, h.about)
	writeOptions(w, fs)
	fmt.Fprint(w, "\nExamples:\n")
	for _, ex := range strings.Split(h.examples, "\n") {
		fmt.Fprintf(w, "  %s\n", ex)
	}
	fmt.Fprint(w, "\nGlobal options (--base-url, --timeout, --user-agent) go before the command;\n"+
		"see catalogctl --help.\n")
}

// writeOptions lists a flag set's options GNU-style, with two dashes,
// which the flag package accepts as well as one.
func writeOptions(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		left := "--" + f.Name
		if arg != "" {
			left += " " + arg
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		// The usage is wrapped beside the option, or under it when the
		// option itself is too wide, so that help fits 80 columns too.
		const indent = 25
		lines := strings.Split(strings.TrimSuffix(wrap(usage, width-indent), "\n"), "\n")
		if len(left)+3 > indent {
			fmt.Fprintf(w, "  %s\n", left)
		} else {
			fmt.Fprintf(w, "  %-*s%s\n", indent-2, left, lines[0])
			lines = lines[1:]
		}
		for _, l := range lines {
			fmt.Fprintf(w, "%*s%s\n", indent, "", l)
		}
	})
}
