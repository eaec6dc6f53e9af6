CREATE TABLE `transaction_days` (
	`day` integer PRIMARY KEY NOT NULL,
	`count` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`consumption_wh` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `transactions` ADD `meter_start_at` integer;--> statement-breakpoint
ALTER TABLE `transactions` ADD `meter_last_at` integer;--> statement-breakpoint
-- Transactions recorded before: metered from their start to their last checkpoint (as they were billed).
UPDATE `transactions` SET `meter_start_at` = `started_at`, `meter_last_at` = `checkpointed_at`;--> statement-breakpoint
INSERT INTO `transaction_days` (`day`, `count`, `duration_ms`, `consumption_wh`)
  SELECT `started_at` / 86400000, count(*), sum(`ended_at` - `started_at`), sum(`meter_last_wh` - `meter_start_wh`)
  FROM `transactions` WHERE `ended_at` IS NOT NULL GROUP BY `started_at` / 86400000;
