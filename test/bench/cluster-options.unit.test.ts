import { Command } from 'commander';
import { addClusterOptions, DEFAULT_CLUSTER_WORKERS, type ClusterCliOptions } from '../../bench/cluster';

function parse(argv: string[]): ClusterCliOptions {
  const program = addClusterOptions(new Command('bench').exitOverride());
  program.parse(argv, { from: 'user' });
  return program.opts<ClusterCliOptions>();
}

describe('the cluster mode on the command line', () => {
  it('is off unless asked for, and runs 1, 2 and 4 workers by default', () => {
    expect(parse([])).toEqual({ cluster: false });
    expect(parse(['--cluster'])).toEqual({ cluster: true });
    expect(DEFAULT_CLUSTER_WORKERS).toEqual([1, 2, 4]);
  });

  it('takes the worker counts as a list', () => {
    expect(parse(['--cluster', '--cluster-workers', '2,8'])).toEqual({
      cluster: true,
      clusterWorkers: [2, 8],
    });
  });
});
