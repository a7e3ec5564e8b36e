import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import type { DeveloperTool } from '../../../api/types';
import { ConfirmButton, ModalDialog } from '../../../components/dialogs';
import { FormError } from '../../../components/fields';
import { formatDateTime } from '../../../lib/format';
import { useNotify } from '../../../lib/notices';
import { diffDefinitions, isEmptyDiff } from './definitionDiff';
import { DiffView } from './DiffView';
import { deleteTool, publishTool, toolPageKeys, unpublishTool, type ToolRevision } from './toolPageApi';

export function statusText(tool: DeveloperTool): string {
  if (tool.status === 'draft') return tool.version > 0 ? 'Withdrawn (draft)' : 'Draft';
  return tool.hasUnpublishedChanges ? 'Published, with unpublished changes' : 'Published';
}

/**
 * The tool's state and what can be done with it: publish (after seeing the diff against the live
 * revision), unpublish and delete (each saying what happens to businesses that enabled the tool).
 */
export function PublishSection({ tool, latest }: { tool: DeveloperTool; latest: ToolRevision | undefined }) {
  const client = useQueryClient();
  const notify = useNotify();
  const navigate = useNavigate();
  const refresh = () => client.invalidateQueries({ queryKey: toolPageKeys.tool(tool.id) });
  const unpublish = useMutation({
    mutationFn: () => unpublishTool(tool.id),
    onSuccess: () => {
      notify(`${tool.name} is unpublished.`);
      // The revisions' `live` mark changes too.
      return Promise.all([refresh(), client.invalidateQueries({ queryKey: toolPageKeys.revisions(tool.id) })]);
    },
  });
  const remove = useMutation({ mutationFn: () => deleteTool(tool.id) });
  const live = tool.status === 'published';

  return (
    <section className="card" aria-labelledby="tool-publishing-title">
      <h2 id="tool-publishing-title">Publishing</h2>
      <dl className="tool-facts">
        <dt>Status</dt>
        <dd>{statusText(tool)}</dd>
        <dt>Live version</dt>
        <dd>{live ? `Version ${tool.version}, published ${formatDateTime(tool.publishedAt)}` : 'None: businesses cannot find or call this tool.'}</dd>
        <dt>Unpublished changes</dt>
        <dd>{tool.hasUnpublishedChanges ? 'Yes: the working copy differs from the live version.' : tool.version === 0 ? 'Never published.' : 'No.'}</dd>
      </dl>
      <div className="actions">
        <PublishButton tool={tool} latest={latest} />
        <Link className="button" to={`/developer/tools/${encodeURIComponent(tool.id)}/edit`}>
          Edit definition
        </Link>
        {live ? (
          <ConfirmButton label="Unpublish" title={`Unpublish ${tool.name}?`} confirmLabel="Unpublish" onConfirm={() => unpublish.mutateAsync()}>
            <p>The tool leaves the catalog at once. Businesses that enabled it keep their installation and credentials, but their agents cannot call it (they get TOOL_NOT_ENABLED) until you publish it again.</p>
            <p>Its revisions are kept.</p>
          </ConfirmButton>
        ) : null}
        <ConfirmButton
          label="Delete"
          title={`Delete ${tool.name}?`}
          confirmLabel="Delete tool"
          onConfirm={async () => {
            await remove.mutateAsync();
            client.removeQueries({ queryKey: toolPageKeys.tool(tool.id) });
            void client.invalidateQueries({ queryKey: ['developer', 'tools'] });
            notify(`${tool.name} is deleted.`);
            void navigate('/developer/tools');
          }}
        >
          <p>The tool and all its revisions are deleted at once. Every business that enabled it loses its installation and the credentials it saved; their agents can no longer call it.</p>
          <p>Call logs are kept. This cannot be undone.</p>
        </ConfirmButton>
      </div>
    </section>
  );
}

/** Publish: a dialog shows what would change from the live (or latest) revision before anything is sent. */
function PublishButton({ tool, latest }: { tool: DeveloperTool; latest: ToolRevision | undefined }) {
  const [open, setOpen] = useState(false);
  const client = useQueryClient();
  const notify = useNotify();
  const publish = useMutation({
    mutationFn: () => publishTool(tool.id),
    onSuccess: async (published) => {
      await Promise.all([client.invalidateQueries({ queryKey: toolPageKeys.tool(tool.id) }), client.invalidateQueries({ queryKey: toolPageKeys.revisions(tool.id) })]);
      setOpen(false);
      notify(`${published.name} version ${published.version} is live.`);
      // With nothing left to publish the Publish button goes away: focus goes to the page's heading rather than nowhere.
      setTimeout(() => {
        if (!document.activeElement || document.activeElement === document.body) document.querySelector<HTMLElement>('main h1')?.focus();
      }, 50);
    },
  });
  const diff = latest ? diffDefinitions(latest, tool) : null;
  const unchanged = diff !== null && isEmptyDiff(diff);
  if (tool.status === 'published' && !tool.hasUnpublishedChanges) return null;
  const next = unchanged ? tool.version : tool.version + 1;

  return (
    <>
      <button type="button" className="button primary" onClick={() => { publish.reset(); setOpen(true); }}>
        Publish
      </button>
      <ModalDialog title={`Publish ${tool.name}?`} isOpen={open} onOpenChange={(next) => !publish.isPending && setOpen(next)} isDismissable={!publish.isPending}>
        {(close) => (
          <>
            {latest && diff ? (
              <>
                <p>
                  {unchanged
                    ? `The working copy is version ${latest.version} as it was: publishing puts that version back in the catalog.`
                    : `Publishing makes version ${next} live for every business that enabled the tool, from their next call. Changes from version ${latest.version}:`}
                </p>
                {unchanged ? null : <DiffView diff={diff} beforeLabel={`Version ${latest.version}${latest.live ? ' (live)' : ''}`} afterLabel="Working copy" label="Changes to publish" headingLevel={3} />}
              </>
            ) : tool.version > 0 ? (
              // The history did not load: say so rather than pretend there is nothing to compare with.
              <p>The published versions could not be loaded, so the changes cannot be shown. Publishing makes the working copy live for every business that enabled the tool.</p>
            ) : (
              <p>This is the first version: publishing puts the tool in the public catalog, where businesses can enable it for their agents.</p>
            )}
            <p className="small muted">The endpoint is checked again before anything goes live.</p>
            <FormError error={publish.error} />
            <div className="actions">
              <button type="button" className="button primary" aria-disabled={publish.isPending || undefined} onClick={() => !publish.isPending && publish.mutate()}>
                {publish.isPending ? 'Publishing…' : `Publish version ${next}`}
              </button>
              <button type="button" className="button" onClick={() => !publish.isPending && close()}>
                Cancel
              </button>
            </div>
          </>
        )}
      </ModalDialog>
    </>
  );
}
