-- Creates catalogd's database user: SELECT on exactly the tables it reads,
-- nothing more. Set the five variables (@db, @prefix, @user, @host,
-- @password), then source this file as an admin: docs/operations.md's
-- "Read-only database user" shows the command and the matching DSN, and a
-- test runs that command exactly as printed.
-- Works on MariaDB 10.5+ and MySQL 8. Safe to run again (it re-grants).
-- Plugins' tables are not granted here; add a line below for each your shop
-- needs: WPML `{prefix}icl_translations` and `{prefix}icl_languages`;
-- TranslatePress `{prefix}trp_slug_originals` and `{prefix}trp_slug_translations`;
-- a site of a multisite network, the network's `{base prefix}sitemeta` and
-- `{base prefix}blogs` (to see network-activated plugins). Without an active
-- plugin's tables catalogd answers 503 and /readyz names the table; without
-- the network's, network-activated plugins go unseen.

SET @create = CONCAT('CREATE USER IF NOT EXISTS ', QUOTE(@user), '@', QUOTE(@host), ' IDENTIFIED BY ', QUOTE(@password));
PREPARE stmt FROM @create; EXECUTE stmt; DEALLOCATE PREPARE stmt;

SET @grant = CONCAT('GRANT SELECT ON `', REPLACE(@db, '`', ''), '`.`', REPLACE(@prefix, '`', ''), '%s` TO ', QUOTE(@user), '@', QUOTE(@host));

SET @sql = REPLACE(@grant, '%s', 'posts'); PREPARE stmt FROM @sql; EXECUTE stmt; DEALLOCATE PREPARE stmt;
SET @sql = REPLACE(@grant, '%s', 'postmeta'); PREPARE stmt FROM @sql; EXECUTE stmt; DEALLOCATE PREPARE stmt;
SET @sql = REPLACE(@grant, '%s', 'terms'); PREPARE stmt FROM @sql; EXECUTE stmt; DEALLOCATE PREPARE stmt;
SET @sql = REPLACE(@grant, '%s', 'term_taxonomy'); PREPARE stmt FROM @sql; EXECUTE stmt; DEALLOCATE PREPARE stmt;
SET @sql = REPLACE(@grant, '%s', 'term_relationships'); PREPARE stmt FROM @sql; EXECUTE stmt; DEALLOCATE PREPARE stmt;
SET @sql = REPLACE(@grant, '%s', 'termmeta'); PREPARE stmt FROM @sql; EXECUTE stmt; DEALLOCATE PREPARE stmt;
SET @sql = REPLACE(@grant, '%s', 'options'); PREPARE stmt FROM @sql; EXECUTE stmt; DEALLOCATE PREPARE stmt;
SET @sql = REPLACE(@grant, '%s', 'woocommerce_attribute_taxonomies'); PREPARE stmt FROM @sql; EXECUTE stmt; DEALLOCATE PREPARE stmt;

-- Optional: the binary log change feed (catalogd --changes=binlog, or auto)
-- sees a change within a second instead of at the next poll, and spares the
-- database the polling. It follows the log as a replica does, which needs
-- these two privileges (they read the log and write nothing; MariaDB 10.5+
-- shows REPLICATION CLIENT as BINLOG MONITOR) and a server started with
-- log_bin, binlog_format=ROW and binlog_row_image=FULL. To grant them,
-- uncomment the next line:
-- SET @sql = CONCAT('GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO ', QUOTE(@user), '@', QUOTE(@host)); PREPARE stmt FROM @sql; EXECUTE stmt; DEALLOCATE PREPARE stmt;
