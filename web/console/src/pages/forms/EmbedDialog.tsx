import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Button, Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { api, seg } from '../../api/client';
import { queryKeys } from '../../api/lists';
import type { EmbedSnippets, Form } from '../../api/types';
import { CopyButton } from '../../components/CopyButton';
import { ModalDialog } from '../../components/dialogs';
import { LoadError, Loading } from '../../components/QueryState';

function Snippet({ label, hint, value, multiline }: { label: string; hint: string; value: string; multiline?: boolean }) {
  const id = useId();
  return (
    <div className="field snippet-field">
      <label htmlFor={id}>{label}</label>
      <p id={`${id}-hint`} className="hint">
        {hint}
      </p>
      {multiline ? (
        <textarea id={id} className="snippet" readOnly value={value} rows={4} aria-describedby={`${id}-hint`} onFocus={(e) => e.target.select()} />
      ) : (
        <input id={id} className="snippet" readOnly value={value} aria-describedby={`${id}-hint`} onFocus={(e) => e.target.select()} />
      )}
      <div>
        <CopyButton text={value} label={`Copy ${label.toLowerCase()}`} />
      </div>
    </div>
  );
}

/** The Embed button: the direct link, the iframe snippet and the script snippet, from `GET /api/org/forms/{id}/embed`. */
export function EmbedButton({ form }: { form: Form }) {
  const [open, setOpen] = useState(false);
  const embed = useQuery({
    queryKey: [...queryKeys.embed(form.id), form.slug],
    queryFn: () => api.get<EmbedSnippets>(`/api/org/forms/${seg(form.id)}/embed`),
    enabled: open,
  });
  return (
    <>
      <Button className="button" onPress={() => setOpen(true)}>
        Embed
      </Button>
      <ModalDialog title={`Embed “${form.title}”`} isOpen={open} onOpenChange={setOpen}>
        {(close) => (
          <>
            {!form.active ? (
              <p className="notice">This form is inactive: visitors see “not available” until you activate it.</p>
            ) : null}
            {embed.isPending ? (
              <Loading />
            ) : embed.isError ? (
              <LoadError error={embed.error} retry={() => void embed.refetch()} />
            ) : (
              <Tabs className="tabs">
                <TabList className="tab-list" aria-label="Ways to share the form">
                  <Tab id="link" className="tab">
                    Link
                  </Tab>
                  <Tab id="iframe" className="tab">
                    Iframe
                  </Tab>
                  <Tab id="script" className="tab">
                    Script
                  </Tab>
                </TabList>
                <TabPanel id="link" className="tab-panel">
                  <Snippet label="Direct link" hint="Share it anywhere: the form on its own page." value={embed.data.directLink} />
                </TabPanel>
                <TabPanel id="iframe" className="tab-panel">
                  <Snippet label="Iframe snippet" hint="Paste it into your site’s HTML where the form should appear." value={embed.data.iframe} multiline />
                </TabPanel>
                <TabPanel id="script" className="tab-panel">
                  <Snippet
                    label="Script snippet"
                    hint="Draws the form right in your page, in your page’s layout. Works under a strict Content Security Policy."
                    value={embed.data.script}
                    multiline
                  />
                </TabPanel>
              </Tabs>
            )}
            <div className="actions">
              <Button className="button" onPress={close}>
                Close
              </Button>
            </div>
          </>
        )}
      </ModalDialog>
    </>
  );
}
