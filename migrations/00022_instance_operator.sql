-- +goose Up
-- An instance operator belongs to no org: they watch the runs and dead
-- letters of every org. Only an operator is without an org, and an operator
-- never has one (an org's admin is an admin).
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ALTER COLUMN org_id DROP NOT NULL;
ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('reviewer', 'admin', 'operator'));
ALTER TABLE users ADD CONSTRAINT users_operator_has_no_org CHECK ((role = 'operator') = (org_id IS NULL));

-- +goose Down
DELETE FROM users WHERE role = 'operator';
ALTER TABLE users DROP CONSTRAINT users_operator_has_no_org;
ALTER TABLE users DROP CONSTRAINT users_role_check;
ALTER TABLE users ALTER COLUMN org_id SET NOT NULL;
ALTER TABLE users ADD CONSTRAINT users_role_check CHECK (role IN ('reviewer', 'admin'));
