<?php
/*
 * WordPress's installation, as wp-admin/install.php runs it when its form
 * is sent, then pretty permalinks, as shops run WordPress. Run by wptest's
 * Install through bootstrap.php.
 */

// The administrator's welcome e-mail: a test has no mail server.
function wp_new_blog_notification() {}

require_once ABSPATH . 'wp-admin/includes/upgrade.php';

wp_install( 'catalogd test shop', 'admin', 'admin@example.invalid', true, '', wp_generate_password( 24 ) );

global $wp_rewrite;
$wp_rewrite->set_permalink_structure( '/%postname%/' );
flush_rewrite_rules( false );
