CREATE TABLE "roster_ids" (
	"room_id" integer NOT NULL,
	"player_id" integer NOT NULL,
	"school_id" text NOT NULL,
	"email" text DEFAULT '' NOT NULL,
	CONSTRAINT "roster_ids_room_id_player_id_pk" PRIMARY KEY("room_id","player_id")
);
--> statement-breakpoint
ALTER TABLE "snapshots" ADD COLUMN "at" bigint;--> statement-breakpoint
ALTER TABLE "roster_ids" ADD CONSTRAINT "roster_ids_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "roster_ids" ADD CONSTRAINT "roster_ids_player_id_players_id_fk" FOREIGN KEY ("player_id") REFERENCES "public"."players"("id") ON DELETE no action ON UPDATE no action;