-- Run by MariaDB's entrypoint after the demo is loaded: catalogd's
-- SELECT-only user for the compose demo.
SET @db = 'wp_demo', @prefix = 'wp_', @user = 'catalogd', @host = '%', @password = 'demo-readonly';
SOURCE /deploy/mysql/readonly-user.sql;
