CREATE TABLE `ocpp_auth_cache` (
	`id_tag` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`expiry_date` integer,
	`parent_id_tag` text,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `ocpp_charging_profiles` (
	`id` integer PRIMARY KEY NOT NULL,
	`connector_id` integer NOT NULL,
	`purpose` text NOT NULL,
	`stack_level` integer NOT NULL,
	`transaction_id` text,
	`profile` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `ocpp_local_list` (
	`id_tag` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`expiry_date` integer,
	`parent_id_tag` text
);
--> statement-breakpoint
CREATE TABLE `ocpp_queue` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`action` text NOT NULL,
	`transaction_id` text NOT NULL,
	`payload` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`not_before` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `ocpp_state` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
