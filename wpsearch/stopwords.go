package wpsearch

import "strings"

//go:generate go run ./internal/stopgen stopwords_table.go

// StopwordsContext is the context of WordPress's translatable list of
// search stopwords (get_search_stopwords); EnglishStopwords is the list
// itself, what a site without a translation of it uses.
const (
	StopwordsContext = "Comma-separated list of search stopwords in your language"
	EnglishStopwords = "about,an,are,as,at,be,by,com,for,from,how,in,is,it,of,on,or,that,the,this,to,was,what,when,where,who,will,with,www"
)

// Stopwords is the list of search stopwords WordPress uses for the site's
// locale (WPLANG, as get_locale gives it: "de_DE"; "" or "en_US" for
// English): the translation Debian's wordpress-l10n ships for it, or the
// English list. The words are split and trimmed as WordPress does; they
// are not lowered (WordPress compares a lowered term with them as they
// are).
func Stopwords(locale string) []string {
	list, ok := translatedStopwords[locale]
	if !ok {
		list = EnglishStopwords
	}
	return SplitStopwords(list)
}

// SplitStopwords splits a comma-separated list as get_search_stopwords
// does: each word trimmed of CR, LF, tab and space; empty ones and "0"
// (PHP's false) dropped.
func SplitStopwords(list string) []string {
	var out []string
	for _, w := range strings.Split(list, ",") {
		if w = strings.Trim(w, "\r\n\t "); w != "" && w != "0" {
			out = append(out, w)
		}
	}
	return out
}
