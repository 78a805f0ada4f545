# frozen_string_literal: true

# Replays 18xx.games game records in that site's own Ruby engine (the "oracle").
#
# Our code; the site's engine is NOT part of this repository. DEVELOPERS.md says
# how to put a copy of its lib/ folder outside the repo. Usage:
#
#   ruby tools/oracle/driver.rb SITE_LIB_DIR
#
# One long-lived process. Reads one JSON request per line on stdin:
#   {"path": "/abs/record.json", "repeat": 1, "states": false}
# and writes one JSON line per request on stdout:
#   {"path", "ok", "error", "error_action_index", "result", "finished",
#    "times", "cpu_times", "states"}
# "error_action_index" is the 0-based index, in the record's "actions" list, of the
# action the engine refused. "times" are seconds per repeat for the replay alone
# (building the game from the record and processing its actions; none when states are
# asked: the replay is then stepwise only); "cpu_times" the same replays in this
# process's CPU seconds, which a loaded machine stretches far less. "states" (only
# when asked) holds one compact summary per processed action. "ready" goes to
# stderr once the engine is loaded.

require 'json'
require 'set'

ENV['ENGINE_LOG_LEVEL'] ||= '4'

# The engine logs to $stdout; our protocol owns stdout, so the engine gets stderr.
PROTOCOL_OUT = $stdout.dup
$stdout = $stderr

# Stand-in for the require_all gem: require every .rb file under the given paths
# (relative to the calling file), retrying files whose constants are not defined yet
# until a whole pass makes no progress.
module RequireAllStandIn
  def self.files_under(paths, base)
    paths.flat_map do |path|
      full = File.expand_path(path.to_s, base)
      if File.directory?(full)
        Dir.glob(File.join(full, '**', '*.rb'))
      else
        [full.end_with?('.rb') ? full : "#{full}.rb"]
      end
    end.sort
  end

  def self.require_with_retry(files)
    pending = files
    until pending.empty?
      failed = []
      errors = []
      pending.each do |file|
        require file
      rescue NameError => e
        failed << file
        errors << e
      end
      raise errors.first if failed.size == pending.size

      pending = failed
    end
    true
  end
end

module Kernel
  def require_rel(*paths)
    base = File.dirname(caller_locations(1, 1)[0].absolute_path)
    RequireAllStandIn.require_with_retry(RequireAllStandIn.files_under(paths, base))
  end

  alias_method :require_all, :require_rel
end

$LOADED_FEATURES << 'require_all.rb'

lib_dir = ARGV[0] || abort('usage: ruby driver.rb SITE_LIB_DIR')
$LOAD_PATH.unshift(File.expand_path(lib_dir))
require File.join(File.expand_path(lib_dir), 'engine')

# Compact summary of a position, to compare positions action by action.
def summary(game, action)
  round = game.round
  description =
    begin
      "#{round.name} #{game.turn}.#{round.round_num}"
    rescue StandardError
      round.class.name.to_s
    end
  # (1861/1867: the national, the RSR, is kept out of the game's list of corporations)
  national = game.instance_variable_get(:@national)
  listed = game.corporations
  listed += [national] if national.is_a?(Engine::Corporation) && !listed.include?(national)
  corporations = listed.map do |c|
    {
      'id' => c.id,
      'cash' => c.cash,
      'price' => c.share_price&.price,
      'trains' => c.trains.map(&:name),
      'floated' => c.floated?,
      'loans' => c.loans.size,
      # the Civil War token (18TN 5.1) and other abilities the company holds
      'abilities' => (c.all_abilities.map { |a| a.type.to_s } rescue []),
      # 1825: a company without a director (its certificate in the pool, 4.4)
      'receivership' => (c.receivership? rescue false),
    }
  end
  players = game.players.map do |p|
    {
      'id' => p.id,
      'cash' => p.cash,
      'shares' => p.shares.group_by(&:corporation).to_h { |c, s| [c.id, s.sum(&:percent)] },
      'companies' => p.companies.map(&:id),
    }
  end
  {
    'id' => action['id'],
    'type' => action['type'],
    'round' => description,
    'acting' => (game.finished ? [] : round.active_entities.map { |e| e.id.to_s }),
    'players' => players,
    'corporations' => corporations,
    'bank' => game.bank.cash,
    # the trains in the Open Market (discarded, or a closed company's where kept)
    'pool_trains' => (game.depot.discarded.map(&:name) rescue []),
  }
end

def error_text(exception)
  "#{exception.class}: #{exception.message}"
end

# Replays the record one action at a time, the way the site's own loader does
# (undo/redo folded first, the engine in loading mode), noting a summary after each.
def replay_stepwise(data, want_states)
  actions = data['actions'] || []
  game = Engine::Game.load(data, actions: [])
  filtered, = game.class.filtered_actions(actions)
  game.instance_variable_set(:@loading, true)
  game.instance_variable_set(:@filtered_actions, filtered)
  game.instance_variable_set(:@raw_all_actions, actions)
  states = []
  actions.each_with_index do |action, index|
    next unless filtered[index]

    game.process_to_action(action['id'])
    return [game, index, states] if game.exception

    states << summary(game, action) if want_states
  end
  game.instance_variable_set(:@loading, false)
  [game, nil, states]
end

def handle(request)
  path = request.fetch('path')
  repeat = [request.fetch('repeat', 1).to_i, 1].max
  want_states = request.fetch('states', false)
  data = JSON.parse(File.read(path))
  times = []
  cpu_times = []
  game = nil
  # (With states the replay is stepwise only: the same processing, no timed load.)
  (want_states ? 0 : repeat).times do
    start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
    game = Engine::Game.load(data)
    cpu_times << Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - cpu
    times << Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
  end
  error = game&.exception
  error_index = nil
  states = nil
  if error || want_states
    stepped, error_index, states = replay_stepwise(data, want_states)
    error ||= stepped.exception
    game = stepped if error_index || want_states
  end
  {
    'path' => path,
    'ok' => error.nil?,
    'error' => error && error_text(error),
    'error_action_index' => error_index,
    'result' => game.result.transform_keys(&:to_s),
    'finished' => game.finished,
    'times' => times,
    'cpu_times' => cpu_times,
    'states' => want_states ? states : nil,
  }
rescue StandardError => e
  {
    'path' => request.is_a?(Hash) ? request['path'] : nil,
    'ok' => false,
    'error' => error_text(e),
    'error_action_index' => nil,
    'result' => {},
    'finished' => false,
    'times' => [],
    'states' => nil,
  }
end

$stderr.puts 'ready'
$stderr.flush
$stdin.each_line do |line|
  next if line.strip.empty?

  request =
    begin
      JSON.parse(line)
    rescue JSON::ParserError => e
      { 'path' => nil, 'parse_error' => e }
    end
  reply =
    if request['parse_error']
      { 'path' => nil, 'ok' => false, 'error' => error_text(request['parse_error']),
        'error_action_index' => nil, 'result' => {}, 'finished' => false, 'times' => [], 'states' => nil }
    else
      handle(request)
    end
  PROTOCOL_OUT.puts(JSON.generate(reply))
  PROTOCOL_OUT.flush
end
