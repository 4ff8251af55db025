CREATE TABLE "scenario_contents" (
	"hash" text NOT NULL,
	"simulator" text NOT NULL,
	"content" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "scenario_contents_hash_pk" PRIMARY KEY("hash")
);
--> statement-breakpoint
CREATE TABLE "scenarios" (
	"teacher_id" integer NOT NULL,
	"scenario_id" text NOT NULL,
	"simulator" text NOT NULL,
	"title" text NOT NULL,
	"hash" text NOT NULL,
	"version" integer NOT NULL,
	"share_token" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "scenarios_teacher_id_scenario_id_pk" PRIMARY KEY("teacher_id","scenario_id"),
	CONSTRAINT "scenarios_share_token_unique" UNIQUE("share_token")
);
--> statement-breakpoint
ALTER TABLE "rounds" ADD COLUMN "scenario_hash" text;--> statement-breakpoint
ALTER TABLE "scenarios" ADD CONSTRAINT "scenarios_teacher_id_teachers_id_fk" FOREIGN KEY ("teacher_id") REFERENCES "public"."teachers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scenarios" ADD CONSTRAINT "scenarios_hash_scenario_contents_hash_fk" FOREIGN KEY ("hash") REFERENCES "public"."scenario_contents"("hash") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rounds" ADD CONSTRAINT "rounds_scenario_hash_scenario_contents_hash_fk" FOREIGN KEY ("scenario_hash") REFERENCES "public"."scenario_contents"("hash") ON DELETE no action ON UPDATE no action;