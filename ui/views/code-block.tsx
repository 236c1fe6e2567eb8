import hljs from 'highlight.js/lib/core';
import python from 'highlight.js/lib/languages/python';
import 'highlight.js/styles/github.css';
import { useMemo } from 'preact/hooks';

hljs.registerLanguage('python', python);

/** Python source, highlighted. highlight.js escapes the code it marks up, so its HTML is safe to set. */
export function CodeBlock({ code, testId }: { code: string; testId: string }) {
  const html = useMemo(() => hljs.highlight(code, { language: 'python', ignoreIllegals: true }).value, [code]);
  return <pre class="code hljs" data-testid={testId}><code dangerouslySetInnerHTML={{ __html: html }} /></pre>;
}
