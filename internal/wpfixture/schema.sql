-- WordPress + WooCommerce table DDL (subset) for test fixtures.
--
-- Table prefix is the literal placeholder {prefix} - substitute it (e.g. wp_)
-- before loading.
--
-- Sources read:
--   WordPress 6.9.7: wp-admin/includes/schema.php, function wp_get_db_schema()
--     (repository johnpbloch/wordpress-core, tag 6.9.7, wp_db_version 60717)
--     Tables: posts, postmeta, terms, term_taxonomy, term_relationships,
--     termmeta, options.
--     Only 6.x difference for these tables: KEY type_status_author on posts
--     was added in WordPress 6.9 (absent in 6.0 - 6.8).
--   WooCommerce 9.x: plugins/woocommerce/includes/class-wc-install.php,
--     function WC_Install::get_schema() (repository woocommerce/woocommerce)
--     Tables: woocommerce_attribute_taxonomies, wc_product_meta_lookup.
--     woocommerce_attribute_taxonomies is unchanged across 8.x and 9.x.
--     wc_product_meta_lookup is the 9.x form: column global_unique_id
--     (GTIN/UPC/EAN/ISBN, shipped with 9.2) and KEY sku (sku(50)) were added
--     in 9.x and do not exist in 8.x.
--
-- Column definitions, defaults, keys and index prefix lengths are as in the
-- sources. WordPress uses max_index_length = 191 (utf8mb4: 767 bytes / 4).
--
-- Table options: WordPress appends $wpdb->get_charset_collate(), which on
-- MariaDB / MySQL 8 resolves to utf8mb4 + utf8mb4_unicode_520_ci. Here that is
-- written out as ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
-- COLLATE=utf8mb4_unicode_520_ci on every table.
--
-- Zero dates: WordPress declares datetime columns with
-- default '0000-00-00 00:00:00'. That is kept as is. Strict modes with
-- NO_ZERO_DATE / NO_ZERO_IN_DATE reject it, so the loader runs
--   SET SESSION sql_mode='NO_ENGINE_SUBSTITUTION'
-- before this file.
--
-- Format: only CREATE TABLE statements, each ending with a semicolon followed
-- by a newline, so a loader can split on that. Comments contain no semicolons.

CREATE TABLE {prefix}termmeta (
	meta_id bigint(20) unsigned NOT NULL auto_increment,
	term_id bigint(20) unsigned NOT NULL default '0',
	meta_key varchar(255) default NULL,
	meta_value longtext,
	PRIMARY KEY (meta_id),
	KEY term_id (term_id),
	KEY meta_key (meta_key(191))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci;

CREATE TABLE {prefix}terms (
	term_id bigint(20) unsigned NOT NULL auto_increment,
	name varchar(200) NOT NULL default '',
	slug varchar(200) NOT NULL default '',
	term_group bigint(10) NOT NULL default 0,
	PRIMARY KEY (term_id),
	KEY slug (slug(191)),
	KEY name (name(191))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci;

CREATE TABLE {prefix}term_taxonomy (
	term_taxonomy_id bigint(20) unsigned NOT NULL auto_increment,
	term_id bigint(20) unsigned NOT NULL default 0,
	taxonomy varchar(32) NOT NULL default '',
	description longtext NOT NULL,
	parent bigint(20) unsigned NOT NULL default 0,
	count bigint(20) NOT NULL default 0,
	PRIMARY KEY (term_taxonomy_id),
	UNIQUE KEY term_id_taxonomy (term_id,taxonomy),
	KEY taxonomy (taxonomy)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci;

CREATE TABLE {prefix}term_relationships (
	object_id bigint(20) unsigned NOT NULL default 0,
	term_taxonomy_id bigint(20) unsigned NOT NULL default 0,
	term_order int(11) NOT NULL default 0,
	PRIMARY KEY (object_id,term_taxonomy_id),
	KEY term_taxonomy_id (term_taxonomy_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci;

CREATE TABLE {prefix}options (
	option_id bigint(20) unsigned NOT NULL auto_increment,
	option_name varchar(191) NOT NULL default '',
	option_value longtext NOT NULL,
	autoload varchar(20) NOT NULL default 'yes',
	PRIMARY KEY (option_id),
	UNIQUE KEY option_name (option_name),
	KEY autoload (autoload)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci;

CREATE TABLE {prefix}postmeta (
	meta_id bigint(20) unsigned NOT NULL auto_increment,
	post_id bigint(20) unsigned NOT NULL default '0',
	meta_key varchar(255) default NULL,
	meta_value longtext,
	PRIMARY KEY (meta_id),
	KEY post_id (post_id),
	KEY meta_key (meta_key(191))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci;

CREATE TABLE {prefix}posts (
	ID bigint(20) unsigned NOT NULL auto_increment,
	post_author bigint(20) unsigned NOT NULL default '0',
	post_date datetime NOT NULL default '0000-00-00 00:00:00',
	post_date_gmt datetime NOT NULL default '0000-00-00 00:00:00',
	post_content longtext NOT NULL,
	post_title text NOT NULL,
	post_excerpt text NOT NULL,
	post_status varchar(20) NOT NULL default 'publish',
	comment_status varchar(20) NOT NULL default 'open',
	ping_status varchar(20) NOT NULL default 'open',
	post_password varchar(255) NOT NULL default '',
	post_name varchar(200) NOT NULL default '',
	to_ping text NOT NULL,
	pinged text NOT NULL,
	post_modified datetime NOT NULL default '0000-00-00 00:00:00',
	post_modified_gmt datetime NOT NULL default '0000-00-00 00:00:00',
	post_content_filtered longtext NOT NULL,
	post_parent bigint(20) unsigned NOT NULL default '0',
	guid varchar(255) NOT NULL default '',
	menu_order int(11) NOT NULL default '0',
	post_type varchar(20) NOT NULL default 'post',
	post_mime_type varchar(100) NOT NULL default '',
	comment_count bigint(20) NOT NULL default '0',
	PRIMARY KEY (ID),
	KEY post_name (post_name(191)),
	KEY type_status_date (post_type,post_status,post_date,ID),
	KEY post_parent (post_parent),
	KEY post_author (post_author),
	KEY type_status_author (post_type,post_status,post_author)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci;

CREATE TABLE {prefix}woocommerce_attribute_taxonomies (
	attribute_id bigint(20) unsigned NOT NULL auto_increment,
	attribute_name varchar(200) NOT NULL,
	attribute_label varchar(200) NULL,
	attribute_type varchar(20) NOT NULL,
	attribute_orderby varchar(20) NOT NULL,
	attribute_public int(1) NOT NULL DEFAULT 1,
	PRIMARY KEY (attribute_id),
	KEY attribute_name (attribute_name(20))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci;

CREATE TABLE {prefix}wc_product_meta_lookup (
	`product_id` bigint(20) NOT NULL,
	`sku` varchar(100) NULL default '',
	`global_unique_id` varchar(100) NULL default '',
	`virtual` tinyint(1) NULL default 0,
	`downloadable` tinyint(1) NULL default 0,
	`min_price` decimal(19,4) NULL default NULL,
	`max_price` decimal(19,4) NULL default NULL,
	`onsale` tinyint(1) NULL default 0,
	`stock_quantity` double NULL default NULL,
	`stock_status` varchar(100) NULL default 'instock',
	`rating_count` bigint(20) NULL default 0,
	`average_rating` decimal(3,2) NULL default 0.00,
	`total_sales` bigint(20) NULL default 0,
	`tax_status` varchar(100) NULL default 'taxable',
	`tax_class` varchar(100) NULL default '',
	PRIMARY KEY (`product_id`),
	KEY `virtual` (`virtual`),
	KEY `downloadable` (`downloadable`),
	KEY `stock_status` (`stock_status`),
	KEY `stock_quantity` (`stock_quantity`),
	KEY `onsale` (`onsale`),
	KEY min_max_price (`min_price`, `max_price`),
	KEY sku (sku(50))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_520_ci;
