CREATE TABLE `energy_days` (
	`day` text PRIMARY KEY NOT NULL,
	`solar_wh` real NOT NULL,
	`grid_wh` real NOT NULL
);
