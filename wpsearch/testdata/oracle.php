<?php
/*
 * wpsearch's oracle on the test's WordPress (run by wptest's Site.PHP):
 * reads a request from the JSON file $input names, prints the answer as
 * JSON. Searches are slashed first, as WordPress slashes ?s= before
 * WP_Query unslashes it: what the storefront's visitor typed reaches
 * parse_search unchanged.
 */

class Wpsearch_Probe extends WP_Query {
	/* What parse_search and parse_search_order make of a search. */
	public function probe( $s ) {
		$q = array( 's' => wp_slash( $s ) );
		if ( ! strlen( $q['s'] ) ) {
			// get_posts searches only for a search of some length.
			return array( 's' => '', 'terms' => array(), 'count' => 0, 'order' => '' );
		}
		$this->parse_search( $q );
		return array(
			's'     => $q['s'],
			'terms' => $q['search_terms'],
			'count' => $q['search_terms_count'],
			'order' => $this->parse_search_order( $q ),
		);
	}

	public function stopwords() {
		return $this->get_search_stopwords();
	}
}

/*
 * In a function: the script runs in PHP's global scope, where WordPress
 * keeps globals of its own ($locale, $page, $s ...).
 */
function wpsearch_oracle( $input ) {
	global $wpdb;
	$request = json_decode( file_get_contents( $input ), true, 512, JSON_THROW_ON_ERROR );
	$answer  = array();

	switch ( $request['op'] ) {
		case 'seed':
			foreach ( $request['products'] as $p ) {
				$ok = $wpdb->insert(
					$wpdb->posts,
					array(
						'ID'                    => $p['id'],
						'post_author'           => 1,
						'post_date'             => $p['date'],
						'post_date_gmt'         => $p['date'],
						'post_modified'         => $p['date'],
						'post_modified_gmt'     => $p['date'],
						'post_title'            => $p['title'],
						'post_excerpt'          => $p['excerpt'],
						'post_content'          => $p['content'],
						'post_status'           => 'publish',
						'post_type'             => 'product',
						'post_name'             => 'product-' . $p['id'],
						'to_ping'               => '',
						'pinged'                => '',
						'post_content_filtered' => '',
						'guid'                  => '',
					)
				);
				if ( ! $ok ) {
					fwrite( STDERR, 'insert ' . $p['id'] . ': ' . $wpdb->last_error );
					exit( 1 );
				}
			}
			$answer = $wpdb->get_results( "SHOW FULL COLUMNS FROM {$wpdb->posts} WHERE Field IN ('post_title', 'post_excerpt', 'post_content')", ARRAY_A );
			break;

		case 'search':
			$order = null;
			add_filter(
				'posts_search_orderby',
				function ( $o ) use ( &$order ) {
					$order = $o;
					return $o;
				},
				PHP_INT_MAX
			);
			foreach ( $request['searches'] as $s ) {
				$args             = array(
					's'              => wp_slash( $s ),
					'post_type'      => 'product',
					'posts_per_page' => -1,
					'orderby'        => 'relevance',
				);
				$order            = null;
				$wpdb->last_error = '';
				$q                = new WP_Query( $args );
				$a                = array(
					's'     => $s,
					'ids'   => array_map( 'intval', wp_list_pluck( $q->posts, 'ID' ) ),
					'error' => $wpdb->last_error,
					'terms' => isset( $q->query_vars['search_terms'] ) ? $q->query_vars['search_terms'] : null,
					'count' => isset( $q->query_vars['search_terms_count'] ) ? $q->query_vars['search_terms_count'] : null,
					'order' => $order,
					'ranks' => null,
					'paged' => array(),
				);
				// The storefront's way: a page at a time.
				for ( $page = 1; $page < 50; $page++ ) {
					$p = new WP_Query( array_merge( $args, array( 'posts_per_page' => 4, 'paged' => $page ) ) );
					if ( ! $p->posts ) {
						break;
					}
					$a['paged'] = array_merge( $a['paged'], array_map( 'intval', wp_list_pluck( $p->posts, 'ID' ) ) );
				}
				// Every product's value of the search's ORDER BY expression.
				$expr = is_string( $order ) ? preg_replace( '/ DESC$/', '', $order ) : '';
				if ( '' !== $expr && '' === $a['error'] ) {
					$a['ranks'] = array();
					foreach ( $wpdb->get_results( "SELECT ID, $expr AS r FROM {$wpdb->posts} WHERE post_type = 'product'", ARRAY_A ) as $row ) {
						$a['ranks'][ $row['ID'] ] = (int) $row['r'];
					}
				}
				$answer[] = $a;
			}
			break;

		case 'probe':
			$probe = new Wpsearch_Probe();
			foreach ( $request['searches'] as $s ) {
				$answer[] = $probe->probe( $s );
			}
			break;

		case 'stopwords':
			foreach ( $request['locales'] as $l ) {
				// en_US is the site's own: no switch.
				$switched = get_locale() !== $l && switch_to_locale( $l );
				if ( get_locale() !== $l ) {
					fwrite( STDERR, "cannot switch to $l" );
					exit( 1 );
				}
				$answer[ $l ] = ( new Wpsearch_Probe() )->stopwords();
				if ( $switched ) {
					restore_previous_locale();
				}
			}
			break;
	}
	return $answer;
}

echo json_encode( wpsearch_oracle( $input ), JSON_THROW_ON_ERROR | JSON_UNESCAPED_UNICODE );
