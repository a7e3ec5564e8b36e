#!/usr/bin/env node
import { runCli } from './cli-commands.js';

/** `switchboard <command>` (cli-commands.ts): the process's environment, standard input and output, and its exit status. */
const code = await runCli(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  out: (text) => console.log(text),
  err: (text) => console.error(text),
});
if (code >= 0) process.exit(code);
