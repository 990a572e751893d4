<?php
/**
 * Plugin Name: catalogd robots.txt rules
 * Description: Asks crawlers not to visit WooCommerce's cart, checkout and account pages, at the paths WooCommerce's page settings give, in the robots.txt WordPress serves.
 * Version:     1.0.0
 * License:     GPL-2.0-or-later
 *
 * A must-use plugin, opt-in: copy this file into wp-content/mu-plugins/
 * (WordPress loads every PHP file there, no activation step; delete it to
 * switch it off). It works only on the robots.txt WordPress generates
 * (do_robots()); a physical robots.txt file in the web root is served by
 * the web server instead and is left alone.
 *
 * What it does, on the robots_txt filter (priority 20: after WordPress's
 * own sitemap line at 0 and WooCommerce's rules at 10):
 * - nothing when the site asks search engines not to index it (Settings >
 *   Reading, blog_public = 0): WordPress then relies on its noindex tag.
 *   WordPress passes the option as stored ('0') before 6.8 and as a bool
 *   (false) from 6.8 on: both are read as WordPress itself reads the
 *   option, by truth;
 * - nothing when WooCommerce is not loaded;
 * - otherwise a "Disallow:" line for each of the cart, checkout and
 *   my-account pages that is set and published, with the path (and, under
 *   plain permalinks, the query) of its permalink, inserted into the
 *   "User-agent: *" group that WordPress starts the file with, so that it
 *   applies to every crawler; everything WordPress and other plugins wrote
 *   stays as it was. A path already disallowed is not repeated, and a page
 *   that is the site's front page ("/") is never disallowed.
 */

defined( 'ABSPATH' ) || exit;

/**
 * The paths to disallow: the cart, checkout and my-account pages'
 * permalinks, path only (with the query under plain permalinks).
 *
 * @return string[]
 */
function catalogd_robots_wc_paths() {
	$paths = array();
	foreach ( array( 'cart', 'checkout', 'myaccount' ) as $page ) {
		$id = wc_get_page_id( $page ); // -1 when the setting is empty.
		if ( $id <= 0 || 'publish' !== get_post_status( $id ) ) {
			continue;
		}
		$url = get_permalink( $id );
		if ( ! is_string( $url ) || '' === $url ) {
			continue;
		}
		$path  = (string) wp_parse_url( $url, PHP_URL_PATH );
		$query = (string) wp_parse_url( $url, PHP_URL_QUERY );
		if ( '' === $path ) {
			$path = '/';
		}
		if ( '' !== $query ) {
			$path .= '?' . $query;
		}
		if ( '/' === $path ) {
			continue; // The front page: disallowing it would hide the whole site.
		}
		$paths[] = $path;
	}
	return array_values( array_unique( $paths ) );
}

/**
 * Adds the Disallow lines to robots.txt.
 *
 * @param string      $output The robots.txt WordPress and other plugins built.
 * @param bool|string $public Whether the site is public: the blog_public
 *                            option, '1' or '0' (WordPress before 6.8) or a
 *                            bool (6.8 and later).
 * @return string
 */
function catalogd_robots_txt( $output, $public ) {
	if ( ! $public || ! function_exists( 'wc_get_page_id' ) ) {
		return $output;
	}
	$lines = '';
	foreach ( catalogd_robots_wc_paths() as $path ) {
		$line = 'Disallow: ' . $path;
		if ( ! preg_match( '/^' . preg_quote( $line, '/' ) . '\s*$/mi', $output ) ) {
			$lines .= $line . "\n";
		}
	}
	if ( '' === $lines ) {
		return $output;
	}
	// Into the group for every crawler, right after its User-agent line.
	if ( preg_match( '/^User-agent:[ \t]*\*[ \t]*\r?\n/mi', $output, $m, PREG_OFFSET_CAPTURE ) ) {
		$at = $m[0][1] + strlen( $m[0][0] );
		return substr( $output, 0, $at ) . $lines . substr( $output, $at );
	}
	// No such group (another plugin rewrote the file): one of our own, first.
	return "User-agent: *\n" . $lines . "\n" . $output;
}

add_filter( 'robots_txt', 'catalogd_robots_txt', 20, 2 );
