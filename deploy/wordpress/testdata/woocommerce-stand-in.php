<?php
/*
 * A stand-in for the one WooCommerce function catalogd-robots.php calls,
 * loaded beside it as a must-use plugin by wordpress_test.go: Debian does
 * not package WooCommerce. It does what WooCommerce's wc_get_page_id()
 * does for the cart, checkout and my-account pages: the page's ID from
 * the woocommerce_{page}_page_id option (through the filter WooCommerce
 * applies to it), -1 when none is set.
 */
function wc_get_page_id( $page ) {
	$id = apply_filters( 'woocommerce_get_' . $page . '_page_id', get_option( 'woocommerce_' . $page . '_page_id' ) );
	return $id ? absint( $id ) : -1;
}
