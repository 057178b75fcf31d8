-- +goose Up
-- An approval writes the document's status and its bookkeeping job in one
-- transaction, so an approved ('active') document always has its job. One
-- that reaches 'active' without it (set by hand, behind the outbox's back)
-- is noted here when its transaction commits: the stranded-work check reads
-- these few rows instead of looking up the job of every approved document in
-- the history. Jobs are never deleted, so a document with a job at its commit
-- keeps it; a noted one drops out of the check once it has a job or another
-- status.
CREATE TABLE approvals_without_job (
    document_id bigint PRIMARY KEY REFERENCES intake_documents (id) ON DELETE CASCADE,
    noted_at    timestamptz NOT NULL DEFAULT now()
);

-- +goose StatementBegin
CREATE FUNCTION intake_documents_note_approval_without_job() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM jobs WHERE intake_id = NEW.id) THEN
        INSERT INTO approvals_without_job (document_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
-- Deferred to the commit: the approval inserts the job after the status.
CREATE CONSTRAINT TRIGGER intake_documents_note_approval_without_job AFTER INSERT OR UPDATE OF status ON intake_documents
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.status = 'active')
    EXECUTE FUNCTION intake_documents_note_approval_without_job();

INSERT INTO approvals_without_job (document_id)
SELECT d.id FROM intake_documents d WHERE d.status = 'active' AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.intake_id = d.id);

-- +goose Down
DROP TRIGGER intake_documents_note_approval_without_job ON intake_documents;
DROP FUNCTION intake_documents_note_approval_without_job();
DROP TABLE approvals_without_job;
