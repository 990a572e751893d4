// Package wpopt decodes the values WordPress and its plugins store
// PHP-serialized in options and meta (active_plugins, woocommerce_permalinks,
// a grouped product's _children, the translation and SEO plugins'
// settings), the way PHP reads them. It runs no SQL: package wpdb reads the
// rows, package catalog applies the rules to what this decodes.
package wpopt
