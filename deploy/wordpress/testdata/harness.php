<?php
/*
 * A minimal stand-in for the WordPress and WooCommerce functions that
 * catalogd-robots.php calls, with WordPress's filter semantics (priorities,
 * then the order added; accepted_args). It reads a scenario as JSON on
 * standard input, loads the plugin, runs the robots_txt filter on the body
 * the scenario gives (what do_robots() and other plugins built) and prints
 * the result. Run by wordpress_test.go.
 *
 * Scenario: {"output": "...", "public": "1" (or a bool), "woocommerce": true,
 *            "pages": {"cart": 7}, "status": {"7": "publish"},
 *            "permalinks": {"7": "https://shop.example/cart/"}}
 */

define( 'ABSPATH', __DIR__ . '/' );

$scenario = json_decode( stream_get_contents( STDIN ), true );
if ( ! is_array( $scenario ) ) {
	fwrite( STDERR, "harness: the scenario is not JSON\n" );
	exit( 2 );
}

$filters = array();

function add_filter( $hook, $callback, $priority = 10, $accepted_args = 1 ) {
	global $filters;
	$filters[ $hook ][ $priority ][] = array( $callback, $accepted_args );
	return true;
}

function apply_filters( $hook, $value, ...$args ) {
	global $filters;
	if ( empty( $filters[ $hook ] ) ) {
		return $value;
	}
	ksort( $filters[ $hook ] );
	foreach ( $filters[ $hook ] as $callbacks ) {
		foreach ( $callbacks as list( $callback, $accepted ) ) {
			$value = call_user_func_array( $callback, array_slice( array_merge( array( $value ), $args ), 0, $accepted ) );
		}
	}
	return $value;
}

function wp_parse_url( $url, $component = -1 ) {
	return parse_url( $url, $component );
}

function get_post_status( $id ) {
	global $scenario;
	return $scenario['status'][ (string) $id ] ?? false;
}

function get_permalink( $id ) {
	global $scenario;
	return $scenario['permalinks'][ (string) $id ] ?? false;
}

if ( ! empty( $scenario['woocommerce'] ) ) {
	// WooCommerce's: the page's ID from its woocommerce_{page}_page_id
	// option, -1 when none is set.
	function wc_get_page_id( $page ) {
		global $scenario;
		$id = $scenario['pages'][ $page ] ?? 0;
		return $id ? (int) $id : -1;
	}
}

require $argv[1];

echo apply_filters( 'robots_txt', $scenario['output'], $scenario['public'] );
