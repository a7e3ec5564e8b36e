import { useMemo } from 'react';
import { Tab, TabList, TabPanel, Tabs } from 'react-aria-components';
import { CopyButton } from '../../../components/CopyButton';
import { exportTool, TOOL_FORMATS, type ExportedParameter, type ToolFormat } from '../../../../../tools/export';

// Named by API: OpenAI's two APIs take different shapes, so "OpenAI" alone would not say which one to copy.
const FORMAT_LABELS: Record<ToolFormat, string> = { openai: 'OpenAI Chat Completions', 'openai-responses': 'OpenAI Responses', anthropic: 'Anthropic', mcp: 'MCP' };

/**
 * The tool as each model API receives it, from the service's own export (web/tools/export.ts, the code
 * behind GET /api/org/agents/{id}/tools and the MCP server), updated as the form changes.
 */
export function ExportPreview({ name, description, parameters }: { name: string; description: string; parameters: ExportedParameter[] }) {
  const texts = useMemo(() => {
    // A row without a name is not a parameter yet: it is left out, as the API would refuse it.
    const tool = { name, description, parameters: parameters.filter((p) => p.name !== '') };
    return Object.fromEntries(TOOL_FORMATS.map((format) => [format, JSON.stringify(exportTool(tool, format), null, 2)])) as Record<ToolFormat, string>;
  }, [name, description, parameters]);

  return (
    <section className="card export-preview" aria-labelledby="tool-export-title">
      <h2 id="tool-export-title">What models receive</h2>
      <p className="hint">The definition each model API gets for this tool, exactly as agents are sent it. Businesses may rename the tool for their agents.</p>
      <Tabs className="tabs">
        <TabList className="tab-list" aria-label="Model APIs">
          {TOOL_FORMATS.map((format) => (
            <Tab key={format} id={format} className="tab">
              {FORMAT_LABELS[format]}
            </Tab>
          ))}
        </TabList>
        {TOOL_FORMATS.map((format) => (
          <TabPanel key={format} id={format} className="tab-panel">
            {/* A named, focusable region: a long definition scrolls, and keyboard users can scroll it too. */}
            <div className="export-code" role="region" aria-label={`${FORMAT_LABELS[format]} definition`} tabIndex={0}>
              <pre className="code">
                <code>{texts[format]}</code>
              </pre>
            </div>
            <CopyButton text={texts[format]} label={`Copy ${FORMAT_LABELS[format]} definition`} />
          </TabPanel>
        ))}
      </Tabs>
    </section>
  );
}
