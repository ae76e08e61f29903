/**
 * `npm run schedule -- apply|pause|unpause|trigger|describe`: manages the nightly replay's Schedule from the
 * command line, as the Web UI's Schedules page does. {@link runScheduleCommand} takes its dependencies, so tests
 * run it in-process.
 */
import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import { createCliProgram, runCliProgram, wantsJson } from './program';
import { renderFields } from './table';
import {
  applyReplaySchedule,
  describeReplaySchedule,
  replayScheduleHandle,
  triggerReplay,
  type ReplayScheduleSettings,
} from '../temporal/schedule';

/** What the command talks to and writes to. */
interface ScheduleCommandDependencies {
  readonly client: Client;
  readonly settings: ReplayScheduleSettings;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

/** Runs the command with `args` (without `node` and the script); returns the exit code. */
export function runScheduleCommand(
  args: readonly string[],
  deps: ScheduleCommandDependencies,
): Promise<number> {
  const { client, settings } = deps;
  const scheduleId = settings.scheduleId;
  const print = (command: Command, value: unknown, text: string): void =>
    deps.out(wantsJson(command) ? JSON.stringify(value, null, 2) : text);

  const program = createCliProgram({
    name: 'schedule',
    description: 'Manage the nightly replay Schedule of failed document uploads',
    out: deps.out,
    err: deps.err,
  });

  program
    .command('apply')
    .description('create the Schedule, or update its time, time zone and action (keeps it paused if it is)')
    .action(async (_options: unknown, command: Command) => {
      const result = await applyReplaySchedule(client, settings);
      const time = `${String(settings.time.hour).padStart(2, '0')}:${String(settings.time.minute).padStart(2, '0')}`;
      print(
        command,
        { result, time, timezone: settings.timezone, taskQueue: settings.taskQueue },
        `Schedule ${result}: every day at ${time} ${settings.timezone}, task queue ${settings.taskQueue}`,
      );
    });

  for (const paused of [true, false]) {
    const verb = paused ? 'pause' : 'unpause';
    program
      .command(verb)
      .description(paused ? 'pause the Schedule (no nightly runs until unpaused)' : 'unpause the Schedule')
      .option('--note <note>', 'why, shown in the Web UI', `${verb}d from the command line`)
      .action(async (options: { note: string }, command: Command) => {
        await replayScheduleHandle(client, scheduleId)[verb](options.note);
        print(
          command,
          { paused, note: options.note },
          paused ? `Schedule paused: ${options.note}` : 'Schedule unpaused',
        );
      });
  }

  program
    .command('trigger')
    .description('start a replay now (skipped while one is still running)')
    .action(async (_options: unknown, command: Command) => {
      await triggerReplay(client, scheduleId);
      print(command, { triggered: true }, 'Schedule triggered');
    });

  program
    .command('describe')
    .description("show the Schedule's state, next runs and recent runs")
    .action(async (_options: unknown, command: Command) => {
      const summary = await describeReplaySchedule(client, scheduleId);
      print(
        command,
        summary,
        renderFields([
          ['schedule', summary.scheduleId],
          ['paused', summary.paused],
          ['note', summary.note],
          ['at', `${summary.calendars.join(', ')} ${summary.timezone ?? ''}`.trim()],
          ['task queue', summary.taskQueue],
          ['runs so far', summary.actionCount],
          ['next runs', summary.nextRuns.slice(0, 3).join(', ')],
          ['recent runs', summary.recentRuns.map((run) => run.workflowId).join(', ') || null],
        ]),
      );
    });

  return runCliProgram(program, args, deps);
}
