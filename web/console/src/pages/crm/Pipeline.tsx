import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type DragEvent } from 'react';
import { Button, Dialog, Heading, Menu, MenuItem, MenuTrigger, Modal, ModalOverlay, Popover } from 'react-aria-components';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, ApiError, seg } from '../../api/client';
import type { Pipeline, Stage } from '../../api/types';
import { Page } from '../../components/Page';
import { LoadError, Loading, QueryState } from '../../components/QueryState';
import { crmKeys, MAX_PAGES, PAGE_SIZE, fetchContact, fetchCustomFields, fetchOpportunities, fetchPipeline } from './api';
import type { Opportunity } from '../../api/types';
import { groupByStage, moveFailedMessage, movedMessage, moveTargets, type Move } from './board';
import { beginMove, confirmMove, failMove } from './board-cache';
import { focusSoon } from './focus';
import { formatDateTime } from '../../lib/format';
import { contactName, customRows } from './format';
import './crm.css';

const MOVE_KEY = ['crm', 'move'] as const;

/** A pipeline as a board: a column per stage, a card per opportunity, moved by drag or by each card's "Move to stage" menu. */
export default function PipelinePage() {
  const { id = '' } = useParams();
  const query = useQuery({ queryKey: crmKeys.pipeline(id), queryFn: ({ signal }) => fetchPipeline(id, signal) });
  return (
    <QueryState query={query} what="pipeline">
      {(pipeline) => <Board pipeline={pipeline} />}
    </QueryState>
  );
}

function Board({ pipeline }: { pipeline: Pipeline }) {
  const client = useQueryClient();
  const key = crmKeys.opportunities(pipeline.id);
  const opportunities = useQuery({ queryKey: key, queryFn: ({ signal }) => fetchOpportunities(pipeline.id, signal) });
  const [announcement, setAnnouncement] = useState({ text: '', n: 0 });
  const [moveError, setMoveError] = useState<{ message: string; opportunityId: string } | null>(null);
  const [focusCard, setFocusCard] = useState<{ id: string; stageId?: string; control: 'move' | 'title' } | null>(null);
  const [dragging, setDragging] = useState<string | null>(null);
  const [over, setOver] = useState<string | null>(null);
  const [params, setParams] = useSearchParams();
  const board = useRef<HTMLDivElement>(null);
  const openId = params.get('opportunity');

  const stageName = (stageId: string) => pipeline.stages.find((stage) => stage.id === stageId)?.name ?? 'another stage';

  const move = useMutation({
    mutationKey: MOVE_KEY,
    mutationFn: (change: Move & { title: string }) => api.patch<Opportunity>(`/api/org/opportunities/${seg(change.opportunityId)}`, { stageId: change.toStageId }),
    onMutate: (change) => {
      setMoveError(null);
      return beginMove(client, key, change);
    },
    onSuccess: (updated, change) => {
      confirmMove(client, key, updated);
      setAnnouncement((previous) => ({ text: movedMessage(change.title, stageName(change.toStageId)), n: previous.n + 1 }));
    },
    onError: (error, change, context) => {
      failMove(client, key, change, context);
      // The stage may be gone (edited elsewhere): the columns are read again too.
      void client.invalidateQueries({ queryKey: crmKeys.pipeline(pipeline.id) });
      setMoveError({ message: moveFailedMessage(change.title, stageName(change.toStageId), error.message), opportunityId: change.opportunityId });
      setAnnouncement((previous) => ({ text: '', n: previous.n + 1 }));
      // Focus goes to the message (the card may be gone, or on its way back); Dismiss returns it to the card.
      if (focusWasOn(change.opportunityId)) {
        setFocusCard(null);
        focusSoon('[data-move-error]');
      }
    },
    onSettled: (_data, _error, change) => {
      // The last move in flight brings the board up to date with the server; the opportunity's own
      // view and the contacts showing its stage are read again when next shown.
      if (client.isMutating({ mutationKey: MOVE_KEY }) <= 1) void client.invalidateQueries({ queryKey: key });
      void client.invalidateQueries({ queryKey: crmKeys.opportunity(change.opportunityId) });
      void client.invalidateQueries({ queryKey: ['crm', 'contact'] });
    },
  });

  /** True when focus is on the card (or lost): it then follows the card back to where it was. */
  const focusWasOn = (opportunityId: string) => {
    const active = document.activeElement;
    return !active || active === document.body || Boolean(active.closest(`[data-card-id="${CSS.escape(opportunityId)}"]`));
  };

  const moveCard = (opportunity: Opportunity, toStageId: string, refocus: boolean) => {
    if (opportunity.stageId === toStageId) return;
    move.mutate({ opportunityId: opportunity.id, toStageId, title: opportunity.title });
    if (refocus) setFocusCard({ id: opportunity.id, stageId: toStageId, control: 'move' });
  };

  // After a keyboard move the card is in another column: once it is there, focus follows it to its
  // "Move to stage" button (the menu closing would otherwise leave focus on nothing).
  useEffect(() => {
    if (!focusCard) return;
    let frame = requestAnimationFrame(() => {
      const scope = focusCard.stageId ? board.current?.querySelector<HTMLElement>(`[data-stage-id="${CSS.escape(focusCard.stageId)}"]`) : board.current;
      const button = scope?.querySelector<HTMLElement>(`[data-card-id="${CSS.escape(focusCard.id)}"] ${focusCard.control === 'move' ? '[data-move-button]' : '.crm-card-title'}`);
      if (!button) {
        // The card is not on this board (another pipeline's, or gone): the page's heading takes focus.
        if (!focusCard.stageId && opportunities.isSuccess && !opportunities.data.some((o) => o.id === focusCard.id)) {
          document.querySelector<HTMLElement>('main h1')?.focus();
          setFocusCard(null);
        }
        return;
      }
      button.focus();
      // React Aria returns focus to the menu's trigger after it closes; make sure the card keeps it.
      frame = requestAnimationFrame(() => {
        if (document.activeElement !== button && button.isConnected) button.focus();
        setFocusCard(null);
      });
    });
    return () => cancelAnimationFrame(frame);
  }, [focusCard, opportunities.data, opportunities.isSuccess]);

  const dismissError = () => {
    const id = moveError?.opportunityId;
    setMoveError(null);
    focusSoon(...(id ? [`[data-card-id="${CSS.escape(id)}"] [data-move-button]`] : []), 'main h1');
  };

  const onDrop = (event: DragEvent, stageId: string) => {
    event.preventDefault();
    const id = event.dataTransfer.getData('text/plain') || dragging;
    setDragging(null);
    setOver(null);
    const opportunity = opportunities.data?.find((o) => o.id === id);
    if (opportunity) moveCard(opportunity, stageId, false);
  };

  const columns = groupByStage(pipeline.stages, opportunities.data ?? []);
  const total = opportunities.data?.length ?? 0;

  return (
    <Page
      title={pipeline.name}
      intro={
        <>
          Drag a card to another stage, or use its <strong>Move to stage</strong> button. <Link to="/pipelines">All pipelines</Link>
        </>
      }
    >
      <div className="visually-hidden" role="status" aria-live="polite" aria-atomic="true">
        {/* A new node each time, so moving twice to one stage is announced twice. */}
        <span key={announcement.n}>{announcement.text}</span>
      </div>
      {moveError ? (
        <div className="form-error crm-move-error" role="alert" tabIndex={-1} data-move-error>
          <p>{moveError.message}</p>
          <button type="button" className="button small" onClick={dismissError}>
            Dismiss
          </button>
        </div>
      ) : null}
      {opportunities.isPending ? (
        <Loading label="Loading opportunities…" />
      ) : opportunities.isError ? (
        <LoadError error={opportunities.error} retry={() => void opportunities.refetch()} />
      ) : (
        <>
          {total >= MAX_PAGES * PAGE_SIZE ? <p className="notice">This board shows the newest {total.toLocaleString()} opportunities of this pipeline.</p> : null}
          {total === 0 ? <p className="notice">No opportunities in this pipeline yet. Forms set to open opportunities here add one with each submission.</p> : null}
          <div className="crm-board" ref={board}>
            {columns.map(({ stage, cards }) => {
              const headingId = `stage-${stage.id}`;
              return (
                <section
                  key={stage.id}
                  className={`crm-column${over === stage.id ? ' crm-drop' : ''}`}
                  aria-labelledby={headingId}
                  data-stage-id={stage.id}
                  onDragOver={(event) => {
                    if (!dragging) return;
                    event.preventDefault();
                    event.dataTransfer.dropEffect = 'move';
                    if (over !== stage.id) setOver(stage.id);
                  }}
                  onDragLeave={(event) => {
                    if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setOver((current) => (current === stage.id ? null : current));
                  }}
                  onDrop={(event) => onDrop(event, stage.id)}
                >
                  <h2 id={headingId} className="crm-column-head">
                    <span className="crm-column-name">{stage.name}</span> <span className="crm-count">({cards.length})</span>
                  </h2>
                  {cards.length === 0 ? (
                    <p className="muted crm-small crm-column-empty">No opportunities</p>
                  ) : (
                    <ul className="crm-column-cards" aria-labelledby={headingId}>
                      {cards.map((opportunity) => (
                        <Card
                          key={opportunity.id}
                          opportunity={opportunity}
                          stages={pipeline.stages}
                          dragging={dragging === opportunity.id}
                          onOpen={() => setParams({ opportunity: opportunity.id })}
                          onMove={(toStageId) => moveCard(opportunity, toStageId, true)}
                          onDragStart={(event) => {
                            event.dataTransfer.setData('text/plain', opportunity.id);
                            event.dataTransfer.effectAllowed = 'move';
                            setDragging(opportunity.id);
                          }}
                          onDragEnd={() => {
                            setDragging(null);
                            setOver(null);
                          }}
                        />
                      ))}
                    </ul>
                  )}
                </section>
              );
            })}
          </div>
        </>
      )}
      <OpportunityDialog
        id={openId}
        pipeline={pipeline}
        cached={opportunities.data?.find((o) => o.id === openId)}
        onClose={() => {
          const next = new URLSearchParams(params);
          next.delete('opportunity');
          setParams(next);
          // Opened from a link (the contact page), the dialog had no trigger to give focus back to: the card takes it
          // (once the board has loaded).
          if (openId) setFocusCard({ id: openId, control: 'title' });
        }}
      />
    </Page>
  );
}

function Card({
  opportunity,
  stages,
  dragging,
  onOpen,
  onMove,
  onDragStart,
  onDragEnd,
}: {
  opportunity: Opportunity;
  stages: Stage[];
  dragging: boolean;
  onOpen: () => void;
  onMove: (toStageId: string) => void;
  onDragStart: (event: DragEvent) => void;
  onDragEnd: () => void;
}) {
  const targets = moveTargets(stages, opportunity.stageId);
  return (
    <li className={`crm-card${dragging ? ' crm-dragging' : ''}`} data-card-id={opportunity.id} draggable onDragStart={onDragStart} onDragEnd={onDragEnd}>
      <button type="button" className="crm-card-title" onClick={onOpen} aria-haspopup="dialog">
        {opportunity.title}
      </button>
      <p className="muted crm-small crm-card-meta">
        Added {formatDateTime(opportunity.createdAt)}
        {opportunity.contactErased ? ' · Contact erased' : null}
      </p>
      {targets.length > 0 ? (
        <MenuTrigger>
          <Button className="button small crm-move" data-move-button aria-label={`Move to stage: ${opportunity.title}`}>
            Move to stage <span aria-hidden="true">▾</span>
          </Button>
          <Popover className="popover" placement="bottom start">
            <Menu className="menu" aria-label={`Move ${opportunity.title} to`} onAction={(key) => onMove(String(key))}>
              {targets.map((stage) => (
                <MenuItem key={stage.id} id={stage.id} className="menu-item" textValue={stage.name}>
                  {stage.name}
                </MenuItem>
              ))}
            </Menu>
          </Popover>
        </MenuTrigger>
      ) : null}
    </li>
  );
}

function OpportunityDialog({ id, pipeline, cached, onClose }: { id: string | null; pipeline: Pipeline; cached: Opportunity | undefined; onClose: () => void }) {
  return (
    <ModalOverlay className="modal-overlay" isDismissable isOpen={id !== null} onOpenChange={(open) => (open ? undefined : onClose())}>
      <Modal className="modal">
        <Dialog className="dialog">{({ close }) => (id ? <OpportunityDetail id={id} pipeline={pipeline} cached={cached} close={close} /> : null)}</Dialog>
      </Modal>
    </ModalOverlay>
  );
}

function OpportunityDetail({ id, pipeline, cached, close }: { id: string; pipeline: Pipeline; cached: Opportunity | undefined; close: () => void }) {
  const query = useQuery({
    queryKey: crmKeys.opportunity(id),
    queryFn: ({ signal }) => api.get<Opportunity>(`/api/org/opportunities/${seg(id)}`, { signal }),
    ...(cached ? { placeholderData: cached } : {}),
  });
  const opportunity = query.data;
  const contact = useQuery({
    queryKey: crmKeys.contact(opportunity?.contactId ?? ''),
    queryFn: ({ signal }) => fetchContact(opportunity!.contactId, signal),
    enabled: Boolean(opportunity) && !opportunity?.contactErased,
  });
  const fields = useQuery({ queryKey: crmKeys.customFields, queryFn: ({ signal }) => fetchCustomFields(signal) });

  const closeButton = (
    <div className="actions">
      <Button className="button" onPress={close}>
        Close
      </Button>
    </div>
  );

  if (!opportunity) {
    if (query.isError) {
      const notFound = query.error instanceof ApiError && query.error.status === 404;
      return (
        <>
          <Heading slot="title">{notFound ? 'Not found' : 'Opportunity'}</Heading>
          {notFound ? <p>This opportunity does not exist, or it belongs to another organization.</p> : <LoadError error={query.error} retry={() => void query.refetch()} />}
          {closeButton}
        </>
      );
    }
    return (
      <>
        <Heading slot="title">Opportunity</Heading>
        <Loading />
      </>
    );
  }

  const stage = pipeline.stages.find((s) => s.id === opportunity.stageId);
  const custom = customRows(opportunity.custom, fields.data);
  return (
    <>
      <Heading slot="title">{opportunity.title}</Heading>
      <dl className="kv">
        <dt>Stage</dt>
        <dd>{opportunity.pipelineId === pipeline.id ? (stage?.name ?? '—') : 'In another pipeline'}</dd>
        <dt>Contact</dt>
        <dd>
          {opportunity.contactErased ? (
            'Erased (their data was removed on request)'
          ) : contact.data ? (
            <Link to={`/contacts/${encodeURIComponent(opportunity.contactId)}`}>{contactName(contact.data)}</Link>
          ) : contact.isError ? (
            <Link to={`/contacts/${encodeURIComponent(opportunity.contactId)}`}>Open the contact</Link>
          ) : (
            'Loading…'
          )}
        </dd>
        {custom.map((row) => (
          <div key={row.key} className="crm-kv-row">
            <dt>{row.label}</dt>
            <dd className="pre">{row.value}</dd>
          </div>
        ))}
        <dt>Source</dt>
        <dd>{opportunity.source === 'form' ? 'Form submission' : opportunity.source === 'api' ? 'API' : opportunity.source}</dd>
        <dt>Added</dt>
        <dd>{formatDateTime(opportunity.createdAt)}</dd>
        <dt>Updated</dt>
        <dd>{formatDateTime(opportunity.updatedAt)}</dd>
      </dl>
      {closeButton}
    </>
  );
}
