CREATE TABLE `energy_today` (
	`id` integer PRIMARY KEY NOT NULL,
	`day` text NOT NULL,
	`solar_wh` real NOT NULL,
	`grid_wh` real NOT NULL,
	`saved_at` integer NOT NULL
);
