-- Optional, for a shop polled at size (docs/change-feed.md, "Polling a large
-- shop"): an index on wp_posts.post_modified_gmt, through which catalogd's
-- poll feed finds each edit by reading the posts saved lately instead of
-- every product post. It finds it without: the index makes each edit's cost
-- follow the edits, not the shop.
--
-- catalogd never runs this: the database is the shop's, and catalogd's own
-- user may only SELECT. Its owner runs it once, as an admin, having set
-- @db and @prefix (the $table_prefix of wp-config.php): docs/operations.md's
-- "An index for polling a large shop" shows the command, and a test runs
-- that command exactly as printed.
--
-- WordPress and WooCommerce answer as before: an index changes no result,
-- WordPress's upgrades (dbDelta) add the indexes they miss and drop none,
-- and InnoDB builds it online (ALGORITHM=INPLACE, LOCK=NONE: the shop keeps
-- selling; a million products take about a minute). It costs each save of
-- a post one more index entry to update. catalogd sees it at its next full
-- scan (5 minutes at most) or restart, and says so in its log. To take it
-- away: ALTER TABLE `wp_posts` DROP INDEX catalogd_post_modified_gmt;
-- catalogd then scans every product post again, as before.
-- Works on MariaDB 10.5+ and MySQL 8. Safe to run again (it adds the index
-- only where it is missing).

SET @table = CONCAT('`', REPLACE(@db, '`', ''), '`.`', REPLACE(@prefix, '`', ''), 'posts`');
SET @has = (SELECT COUNT(*) FROM information_schema.STATISTICS
	WHERE TABLE_SCHEMA = @db AND TABLE_NAME = CONCAT(@prefix, 'posts') AND INDEX_NAME = 'catalogd_post_modified_gmt');
SET @sql = IF(@has > 0, 'DO 0',
	CONCAT('ALTER TABLE ', @table, ' ADD INDEX catalogd_post_modified_gmt (post_modified_gmt), ALGORITHM=INPLACE, LOCK=NONE'));
PREPARE stmt FROM @sql; EXECUTE stmt; DEALLOCATE PREPARE stmt;
