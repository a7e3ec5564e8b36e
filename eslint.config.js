import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', '.cache/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  {
    files: ['scripts/**', 'bench/**', 'src/cli.ts', 'src/cli/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // Browser code: the browser's globals, none of Node's; tests beside it run in Node.
    files: ['web/**'],
    ignores: ['web/**/*.test.ts', 'web/console/vite.config.ts'],
    languageOptions: { globals: { ...globals.browser, process: 'off', Buffer: 'off' } },
    rules: {
      'no-restricted-globals': ['error', 'process', 'Buffer', 'require', 'global', '__dirname', '__filename'],
      // Operator-supplied strings reach the DOM as text: HTML parsing sinks and code from strings are off limits.
      'no-restricted-properties': [
        'error',
        { property: 'innerHTML', message: 'Set text with textContent or append(); operator strings are never HTML.' },
        { property: 'outerHTML', message: 'Set text with textContent or append(); operator strings are never HTML.' },
        { property: 'insertAdjacentHTML', message: 'Set text with textContent or append(); operator strings are never HTML.' },
        { object: 'document', property: 'write', message: 'Build nodes with createElement.' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "JSXAttribute[name.name='dangerouslySetInnerHTML']", message: 'Operator strings render as text: no dangerouslySetInnerHTML.' },
      ],
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
    },
  },
  {
    // The console (React): the rules of hooks.
    files: ['web/console/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
);
