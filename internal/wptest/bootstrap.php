<?php
/*
 * Loads the test's WordPress in php-cli, as a request for the site's home
 * page would, then runs the PHP file named by the first argument. Run by
 * wptest's Site.PHP. Debian's wp-config.php picks the site's settings by
 * the request's host name: /etc/wordpress/config-<host>.php.
 */
$_SERVER['HTTP_HOST']       = getenv( 'WPTEST_HOST' );
$_SERVER['REQUEST_URI']     = '/';
$_SERVER['REQUEST_METHOD']  = 'GET';
$_SERVER['SERVER_PROTOCOL'] = 'HTTP/1.1';
if ( getenv( 'WPTEST_INSTALLING' ) ) {
	// As wp-admin/install.php sets it: no redirect to the installer.
	define( 'WP_INSTALLING', true );
}
require getenv( 'WPTEST_ROOT' ) . '/wp-load.php';
require $argv[1];
