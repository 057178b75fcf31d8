-- +goose Up
-- A noted approval without a job (migration 00038) stops being one when its
-- job is created (an operator's repair, a restore): the note goes with it,
-- so the stranded-work check reads only what is still stranded rather than
-- every approval that ever was.
-- +goose StatementBegin
CREATE FUNCTION jobs_clear_approval_without_job() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM approvals_without_job WHERE document_id = NEW.intake_id;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER jobs_clear_approval_without_job AFTER INSERT ON jobs
    FOR EACH ROW EXECUTE FUNCTION jobs_clear_approval_without_job();

DELETE FROM approvals_without_job n WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.intake_id = n.document_id);

-- +goose Down
DROP TRIGGER jobs_clear_approval_without_job ON jobs;
DROP FUNCTION jobs_clear_approval_without_job();
