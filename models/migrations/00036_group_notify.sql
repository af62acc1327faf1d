-- A notifier group's removal (or a change of its id or provider) is
-- announced on channel wasteflow_sessions as 'group:' and the group's id,
-- by whatever process makes it: each instance's session cache, which also
-- keeps the groups that group tokens name, forgets it
-- (auth.Service.Authenticate). Before, every use of a group token read the
-- group's row: 1,000 long polls woken by one event read it 1,000 times
-- when they asked again (17 % of the process's CPU in make stress's
-- TestIdleWaitsCostNothing). SQLite has no such channel: there a table takes
-- its place (00037).
{{if .Postgres}}
CREATE FUNCTION wasteflow_group_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('wasteflow_sessions', 'group:' || OLD.id); RETURN NULL; END $$;
CREATE TRIGGER notifier_groups_changed AFTER UPDATE OF id, provider_id OR DELETE ON notifier_groups FOR EACH ROW EXECUTE FUNCTION wasteflow_group_changed();
{{end}}
