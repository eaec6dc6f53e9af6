CREATE TABLE `accounts` (
	`username` text PRIMARY KEY NOT NULL,
	`password` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `key_values` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`backend_transaction_id` text,
	`tag_id` text,
	`user_id` text,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	`meter_start_wh` integer NOT NULL,
	`meter_last_wh` integer NOT NULL,
	`max_power_w` integer NOT NULL,
	`stop_reason` text,
	`checkpointed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `transactions_completed_by_start` ON `transactions` (`started_at`) WHERE ended_at IS NOT NULL;--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `whitelist` (
	`id` text PRIMARY KEY NOT NULL,
	`tag_type` text,
	`number` integer,
	`name` text,
	`user_id` text,
	`priority` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
