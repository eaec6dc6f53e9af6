-- One card, one entry: tag ids that differ only in the letter case of A-Z are the same tag from now on.
-- Entries that were duplicates in that sense are resolved here: the one added first (lowest rowid) is kept, every
-- other is moved to whitelist_removed_duplicates with its data and the id it duplicated; the controller logs each
-- one once at its next start.
CREATE TABLE `whitelist_removed_duplicates` (
	`id` text NOT NULL,
	`kept_id` text NOT NULL,
	`tag_type` text,
	`number` integer,
	`name` text,
	`user_id` text,
	`priority` text,
	`created_at` integer NOT NULL,
	`reported_at` integer
);
--> statement-breakpoint
INSERT INTO `whitelist_removed_duplicates` (`id`, `kept_id`, `tag_type`, `number`, `name`, `user_id`, `priority`, `created_at`)
	SELECT w.`id`, k.`id`, w.`tag_type`, w.`number`, w.`name`, w.`user_id`, w.`priority`, w.`created_at`
	FROM `whitelist` w
	JOIN `whitelist` k ON k.rowid = (SELECT min(f.rowid) FROM `whitelist` f WHERE lower(f.`id`) = lower(w.`id`))
	WHERE w.rowid <> k.rowid
	ORDER BY w.rowid;
--> statement-breakpoint
DELETE FROM `whitelist` WHERE rowid NOT IN (SELECT min(rowid) FROM `whitelist` GROUP BY lower(`id`));
--> statement-breakpoint
CREATE UNIQUE INDEX `whitelist_tag` ON `whitelist` (lower("id"));
