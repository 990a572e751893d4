<?php
/*
 * WordPress 6.8 and later pass the blog_public option to the robots_txt
 * filter as a bool (do_robots(): (bool) get_option( 'blog_public' ));
 * Debian's WordPress 6.1 passes it as stored, '1' or '0'. Loaded as a
 * must-use plugin by wordpress_test.go, this makes 6.1 pass what 6.8 and
 * later pass, through WordPress's own filter on the option's value (which
 * plugins use too: a site's blog_public can reach robots_txt as anything
 * they return).
 */
add_filter( 'option_blog_public', 'boolval' );
