import { useEffect, useMemo, useState } from 'preact/hooks';
import { get, patch, post, seg } from '../api';
import { navigate } from '../router';
import {
  Badge,
  Empty,
  ErrorBox,
  Field,
  formValues,
  html,
  Link,
  Loading,
  loaded,
  Page,
  Preview,
  Table,
  useAction,
  useData,
  when,
} from '../ui';
import { render } from '../../../../shared/templates/render';

export function Templates() {
  const state = useData(() => get('/templates?limit=100'));
  const action = useAction();
  const create = (event: Event) => {
    const v = formValues(event);
    return action.run(async () =>
      navigate(
        `/templates/${(await post('/templates', { name: v.name, html: '<p>Hello {{{NAME}}}</p>', variables: [{ key: 'NAME', type: 'string', fallback_value: 'there' }] })).id}`,
      ),
    );
  };
  return html`<${Page} title="Templates" lead="Reusable emails with variables, sent with template on POST /emails once published.">
    <form class="inline card" onSubmit=${create}><${Field} label="Template name"><input name="name" required /><//><button type="submit" disabled=${action.pending}>New template</button></form>
    <${ErrorBox} error=${action.error} />
    ${loaded(
      state,
      (data) => html`<${Table}
        label="Templates"
        columns=${['Name', 'Alias', 'Status', 'Created']}
        empty=${html`<${Empty} title="No templates yet">Name one above to start from a short example.<//>`}
        rows=${data.data.map(
          (t: any) =>
            html`<tr><td><${Link} to=${`/templates/${t.id}`}>${t.name}<//></td><td>${t.alias ?? ''}</td><td><${Badge} value=${t.status} /></td><td>${when(t.created_at)}</td></tr>`,
        )} />`,
    )}
  <//>`;
}

interface Variable {
  key: string;
  type: 'string' | 'number';
  fallback_value: string | number | null;
}

/** The html as a send without variables renders it (the sender's renderer): declared fallbacks, else each placeholder's own; other keys as written. */
const renderPreview = (markup: string, variables: Variable[]) =>
  render(markup, Object.fromEntries(variables.map((v) => [v.key, v.fallback_value])));

/** Edit (PATCH), publish and duplicate a template, with its preview as you type. */
export function TemplateDetail({ id }: { id: string }) {
  const { data: template, error, reload } = useData(() => get(`/templates/${seg(id)}`), [id]);
  const action = useAction();
  const [draft, setDraft] = useState<
    { name: string; subject: string; html: string; variables: Variable[] } | undefined
  >();
  useEffect(() => {
    if (template)
      setDraft({
        name: template.name,
        subject: template.subject ?? '',
        html: template.html ?? '',
        variables: template.variables.map((v: any) => ({ key: v.key, type: v.type, fallback_value: v.fallback_value })),
      });
  }, [template]);
  const preview = useMemo(
    () => (draft ? renderPreview(draft.html, draft.variables) : { text: '', malformed: [] }),
    [draft],
  );
  if (error) return html`<${Page} title="Template"><${ErrorBox} error=${error} retry=${reload} /><//>`;
  if (!template || !draft) return html`<${Page} title="Template"><${Loading} /><//>`;
  const set = (patchDraft: Partial<typeof draft>) => setDraft({ ...draft, ...patchDraft });
  const setVariable = (index: number, change: Partial<Variable>) =>
    set({ variables: draft.variables.map((v, i) => (i === index ? { ...v, ...change } : v)) });
  const save = () =>
    action.run(async () => {
      await patch(`/templates/${seg(id)}`, {
        name: draft.name,
        subject: draft.subject || null,
        html: draft.html,
        variables: draft.variables,
      });
      reload();
    });
  return html`<${Page} title=${template.name} actions=${html`
      <button type="button" disabled=${action.pending} onClick=${save}>Save</button>
      <button type="button" disabled=${action.pending} onClick=${() => action.run(async () => (await post(`/templates/${seg(id)}/publish`), reload()))}>Publish</button>
      <button type="button" disabled=${action.pending} onClick=${() => action.run(async () => navigate(`/templates/${(await post(`/templates/${seg(id)}/duplicate`)).id}`))}>Duplicate</button>`}>
    <${ErrorBox} error=${action.error} />
    <p>Status <${Badge} value=${template.status} />${template.has_unpublished_versions ? ' · unpublished changes' : ''}</p>
    <div class="columns">
      <div class="stack">
        <${Field} label="Name"><input value=${draft.name} onInput=${(e: any) => set({ name: e.currentTarget.value })} /><//>
        <${Field} label="Subject"><input value=${draft.subject} onInput=${(e: any) => set({ subject: e.currentTarget.value })} /><//>
        <${Field} label="HTML"><textarea rows="12" value=${draft.html} onInput=${(e: any) => set({ html: e.currentTarget.value })}></textarea><//>
        ${preview.malformed.length ? html`<p class="badge warn" role="alert">Braces that do not pair: ${preview.malformed.join(' ')}. Write three or two on both sides; saving is refused until then.</p>` : null}
        <h2>Variables</h2>
        ${draft.variables.map(
          (v, i) => html`<div class="inline card">
            <${Field} label=${`Key ${i + 1}`}><input value=${v.key} onInput=${(e: any) => setVariable(i, { key: e.currentTarget.value })} /><//>
            <${Field} label=${`Type ${i + 1}`}><select value=${v.type} onChange=${(e: any) => setVariable(i, { type: e.currentTarget.value })}><option value="string">string</option><option value="number">number</option></select><//>
            <${Field} label=${`Fallback ${i + 1}`}><input value=${v.fallback_value ?? ''} onInput=${(e: any) => setVariable(i, { fallback_value: v.type === 'number' ? Number(e.currentTarget.value) : e.currentTarget.value })} /><//>
            <button type="button" class="small danger" onClick=${() => set({ variables: draft.variables.filter((_, j) => j !== i) })}>Remove</button></div>`,
        )}
        <button type="button" class="small" onClick=${() => set({ variables: [...draft.variables, { key: `VAR_${draft.variables.length + 1}`, type: 'string', fallback_value: '' }] })}>Add variable</button>
      </div>
      <div><h2 class="first">Preview</h2><${Preview} markup=${preview.text} title="Template preview" /></div>
    </div>
  <//>`;
}
