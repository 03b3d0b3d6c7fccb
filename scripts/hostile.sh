#!/usr/bin/env bash
# The adversarial suite: every hostile input of the limits review, each run
# under a 2 GB address-space limit (ulimit -v) and a time limit, classified
# by its outcome. It fails on any panic, internal error, out-of-memory,
# timeout or exit code other than the one expected, and prints a summary
# table per command (docs/limits.md holds the last one).
#
#   scripts/hostile.sh [BIN]     (make hostile builds BIN first)
#
# Environment: HOSTILE_VMEM (KiB, default 2097152), HOSTILE_TIMEOUT (s, 180).
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-bin/gatesim}")
VMEM=${HOSTILE_VMEM:-2097152}
TMO=${HOSTILE_TIMEOUT:-180}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export GATESIM_CUDART_LIB="$W/no-libcudart.so" GATESIM_NCCL_LIB="$W/no-libnccl.so"
CAP=golden/testdata/captured/h200x2-2.28.9/baseline
for f in topo.xml graph.xml nccl.log; do
  test -f "$CAP/$f" || { echo "hostile: $CAP/$f missing" >&2; exit 2; }
done

# --- inputs ---------------------------------------------------------------
sed 's/nchannels="12"/nchannels="65"/' "$CAP/graph.xml" >"$W/g65.xml"
sed 's/nchannels="12"/nchannels="-12"/' "$CAP/graph.xml" >"$W/gneg.xml"
sed '0,/count="18"/s//count="-18"/' "$CAP/topo.xml" >"$W/neglink.xml"
sed 's/speed="10000"/speed="-400000"/' "$CAP/topo.xml" >"$W/negspeed.xml"
sed 's/<gpu dev="1"/<gpu dev="0"/' "$CAP/topo.xml" >"$W/dupgpu.xml"
printf '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n<system version="1">&e;</system>\n' >"$W/xxe.xml"
{ printf '<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">'
  prev=a; for e in b c d e f g h i j; do printf '<!ENTITY %s "%s">' $e "$(printf "&$prev;%.0s" {1..10})"; prev=$e; done
  printf ']>\n<system version="1">&j;</system>\n'; } >"$W/laughs.xml"
{ printf '<system version="1">'; for i in $(seq 5000); do printf '<cpu>'; done; printf '</system>\n'; } >"$W/deep.xml"
printf 'a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n' >"$W/bomb.yaml"
python3 - "$W" <<'EOF'
import sys, os
w = sys.argv[1]
def put(name, s):
    with open(os.path.join(w, name), "w") as f:
        f.write(s)
hca = ",".join(f"mlx5_{i}:1" for i in range(6000))[:50000]    # 50,000 characters
put("hca.txt", hca)
put("longname.json", '{"path": "/opt/' + "p" * 60000 + '/libnccl-net.so", "net_symbols": [8], "in_loader_path": true}')
put("longconf.yaml", "preset: dgx-h100\nconf:\n  /etc/nccl.conf: {NCCL_IB_HCA: \"" + hca + "\"}\n")
put("comm10m.txt", "init c0\nallreduce " + "c" * (10 << 20) + " 1MiB\n")
put("comm1k.txt", "init c0\nallreduce " + "c" * 1000 + " 1MiB\n")
put("nest1m.txt", "groupStart\n" * 1000000)
put("badcall.txt", "allreduce nope 1MiB\n")
put("calls.txt", "init c0\ngroupStart\nallreduce c0 1MiB bf16 max\nallgather c0 4MiB\ngroupEnd\nsync c0\n")
put("env16k.sh", "".join(f"export NCCL_FOO_{i}=1\n" for i in range(16000)))
put("env4k.sh", "".join(f"export NCCL_FOO_{i}=1\n" for i in range(4000)))
put("envlong.sh", "export NCCL_IB_HCA=" + "x" * (2 << 20) + "\n")
put("sweep10m.yaml", "nccl: [2.28.9, 2.22.3]\nsystems: [{preset: dgx-h100, nodes: [1,2,4,8,16,32,64,128,256,512], gpus: [1,2,3,4,5,6,7,8], sharp: [false, true]}]\ncolls: [allreduce, allgather, reducescatter, broadcast, reduce]\nsizes: {from: \"1\", to: 1TiB, factor: 2}\nenv: [{name: a}, {name: b}, {name: c}, {name: d}, {name: e}, {name: f}, {name: g}, {name: h}, {name: i}, {name: j}]\n")
put("sweep1m.yaml", "nccl: [2.28.9]\nsystems: [{preset: dgx-h100, nodes: [1,2,3,4,5,6,7,8,9,10], gpus: [1,2,3,4,5,6,7,8,9,10]}]\ncolls: [allreduce, allgather, reducescatter, broadcast, reduce]\nsizes: {list: [" + ",".join('"%d"' % (4 * (i + 1)) for i in range(2000)) + "]}\n")
put("sweepmax.yaml", "nccl: [2.28.9]\nsystems: [{preset: dgx-h100, nodes: [1,2,4,8]}]\ncolls: [allreduce, allgather, reducescatter, broadcast, reduce]\nsizes: {list: [" + ",".join('"%d"' % (4 * (i + 1)) for i in range(5000)) + "]}\n")
put("sweepnodes.yaml", "nccl: [2.28.9]\nsystems: [{preset: dgx-h100, nodes: [16384,16384,16384,16384,16384], gpus: [1,2]}]\nsizes: {list: [1MiB]}\n")
put("dupgpu.json", '{"nodes":[{"gpus":[{"dev":0,"sm":90,"mlopart":0},{"dev":0,"sm":90,"mlopart":1},{"dev":0,"sm":90}]}]}')
put("bigsys.json", '{"nodes":[' + ",".join('{"gpus":[{"dev":0,"sm":90}]}' for _ in range(20000)) + "]}")
good = '{"id":%d,"nccl":"2.28.9","system":"v100x4","op":{"coll":"allreduce","bytes":"1MiB"}}\n'
put("oracle-files.jsonl", "".join([
    '{"id":1,"nccl":"2.28.9","system":"/dev/zero","op":{"coll":"allreduce","bytes":4}}\n',
    '{"id":2,"nccl":"2.28.9","system":"/proc/self/status","op":{"coll":"allreduce","bytes":4}}\n',
    '{"id":3,"nccl":"2.28.9","system":"/etc/passwd.json","op":{"coll":"allreduce","bytes":4}}\n',
    '{"id":4,"nccl":"2.28.9","system":"v100x4","env":{"NCCL_GRAPH_FILE":"/dev/zero"},"op":{"coll":"allreduce","bytes":4}}\n',
    good % 5]))
with open(os.path.join(w, "oracle-longline.jsonl"), "w") as f:
    f.write('{"id":1,"x":"' + "a" * (70 << 20) + '"}\n')
    f.write(good % 2)
put("oracle-trailing.jsonl", (good % 1).strip() + " garbage\n" + good % 2)
put("oracle-huge.jsonl", "".join([
    '{"id":1,"nccl":"2.28.9","system":"dgx-h100","op":{"coll":"allreduce","count":1125899906842624}}\n',
    '{"id":2,"nccl":"2.28.9","system":"dgx-h100","op":{"coll":"allreduce","count":2305843009213693952}}\n',
    '{"id":3,"nccl":"2.28.9","system":"dgx-h100","nodes":131072,"op":{"coll":"allreduce","bytes":4}}\n',
    '{"id":4,"nccl":"2.28.9","system":"dgx-h100","nodes":9223372036854775807,"op":{"coll":"allreduce","bytes":4}}\n',
    good % 5]))
put("oracle-budget.jsonl", '{"id":1,"nccl":"2.28.9","system":"dgx-h100","nodes":512,"op":{"coll":"allreduce","bytes":"1GiB"}}\n')
put("oracle-slow.jsonl", '{"id":1,"nccl":"2.28.9","system":"gb200-nvl72","nodes":32,"op":{"coll":"allreduce","bytes":"1GiB"}}\n' + good % 2)
put("oracle-group4k.jsonl", '{"id":1,"nccl":"2.28.9","system":"dgx-a100","group":[' + ",".join(['{"coll":"allreduce","bytes":"1MiB"}'] * 4096) + ']}\n' + good % 2)
put("oracle-graph.jsonl", '{"id":1,"nccl":"2.28.9","system":"h200x2","env":{"NCCL_NVLS_ENABLE":"0","NCCL_GRAPH_FILE":"' + w + '/allow/g65.xml"},"op":{"coll":"allreduce","bytes":4}}\n')
with open(os.path.join(w, "garbage.log"), "wb") as f:
    import random
    r = random.Random(1)
    lines = open("golden/testdata/captured/h200x2-2.28.9/baseline/nccl.log", "rb").read().splitlines()
    f.write(b"junk NCCL version 9.99.99\nNCCL version 2.99.1\n")
    n = 0
    while n < 50 << 20:
        if r.random() < 0.5:
            l = lines[r.randrange(len(lines))]
        else:
            l = bytes(r.randrange(32, 127) for _ in range(r.randrange(1, 200)))
        f.write(l + b"\n")
        n += len(l) + 1
EOF
mkdir -p "$W/allow" "$W/dir" && cp "$W/g65.xml" "$W/allow/"
mkfifo "$W/fifo"
truncate -s 100M "$W/zero100m"
printf 'export NCCL_IB_HCA=mlx5_0\nexport NCCL_ALGO=Rnig\n' >"$W/envsmall.sh"
cp -r "$CAP" "$W/nograph" && rm "$W/nograph/graph.xml"
cp -r "$CAP" "$W/cutlog" && head -8 "$CAP/nccl.log" >"$W/cutlog/nccl.log"
cp -r "$CAP" "$W/emptylog" && : >"$W/emptylog/nccl.log"

# --- runner ---------------------------------------------------------------
RES="$W/results"
: >"$RES"
fail=0
# hcase COMMAND WANT NAME -- ARGS...   (WANT: the exit codes allowed, such as 2 or 0,1; STDIN from $IN when set)
hcase() {
  local cmd=$1 want=$2 name=$3; shift 4
  local out="$W/out" err="$W/err" rc t0 t1
  t0=$(date +%s.%N)
  ( ulimit -v "$VMEM"; exec /usr/bin/time -o "$W/rss" -f '%M %U %S' timeout "$TMO" "$BIN" "$@" <"${IN:-/dev/null}" >"$out" 2>"$err" )
  rc=$?
  # peak memory (KiB) and CPU seconds: on a shared machine the CPU time,
  # not the wall time, says what an input costs
  local rss cpu
  read -r rss cpu < <(grep -E '^[0-9]+ [0-9.]+ [0-9.]+$' "$W/rss" | tail -1 | awk '{print $1, $2 + $3}')
  t1=$(date +%s.%N)
  local class
  if grep -qE '^(panic:|fatal error:|goroutine [0-9]+ \[)|runtime: out of memory|cannot allocate memory' "$err"; then
    if grep -qE 'out of memory|cannot allocate' "$err"; then class=oom; else class=panic; fi
  elif [ "$rc" = 70 ]; then class=internal
  elif [ "$rc" = 124 ]; then class=timeout
  elif [ "$rc" -gt 128 ]; then class=killed
  else class="exit$rc"
  fi
  # an oracle stream exits 0; a panic there shows as an internal answer
  if [ "$cmd" = oracle ] && grep -q '"status":"internal"' "$out"; then class=internal; fi
  local ok=no
  case ",$want," in *",$rc,"*) case $class in exit*) ok=yes ;; esac ;; esac
  [ $ok = yes ] || fail=1
  printf '%s\t%s\t%s\t%s\t%.1f\t%s\t%d\t%.1f\n' "$cmd" "$name" "$class" "$want" "$(echo "$t1 - $t0" | bc)" "$ok" "$(( ${rss:-0} / 1024 ))" "${cpu:-0}" >>"$RES"
  if [ $ok != yes ]; then
    echo "FAIL $cmd / $name: $class (want exit $want)"; head -c 600 "$err"; echo
  fi
}

# topology and graph files
hcase topo 2 "graph XML nchannels=65" -- topo search --topo "$CAP/topo.xml" --graph-file "$W/g65.xml"
hcase topo 2 "graph XML nchannels=-12" -- topo search --topo "$CAP/topo.xml" --graph-file "$W/gneg.xml"
hcase topo 2 "--nodes 2^63-1" -- topo search --preset dgx-h100 --nodes 9223372036854775807
hcase topo 2 "topology XML with an external entity" -- topo search --topo "$W/xxe.xml"
hcase topo 2 "topology XML billion laughs" -- topo search --topo "$W/laughs.xml"
hcase topo 2 "topology XML nested 5000 deep" -- topo search --topo "$W/deep.xml"
hcase topo 2 "graph file /dev/zero" -- topo search --topo "$CAP/topo.xml" --graph-file /dev/zero
hcase topo 0 "--nodes 16384 (the maximum)" -- topo search --preset dgx-h100 --nodes 16384
hcase explain 2 "NCCL_GRAPH_FILE nchannels=65" -- explain --topo "$CAP/topo.xml" --env NCCL_NVLS_ENABLE=0 --env NCCL_GRAPH_FILE="$W/g65.xml"
hcase table 2 "NCCL_GRAPH_FILE nchannels=65" -- table --topo "$CAP/topo.xml" --env NCCL_NVLS_ENABLE=0 --env NCCL_GRAPH_FILE="$W/g65.xml"
hcase sim 2 "NCCL_GRAPH_FILE nchannels=65" -- sim --topo "$CAP/topo.xml" --env NCCL_NVLS_ENABLE=0 --env NCCL_GRAPH_FILE="$W/g65.xml" --bytes 1MiB
hcase table 2 "topology XML negative NVLink count" -- table --topo "$W/neglink.xml"
hcase table 2 "topology XML negative NIC speed" -- table --topo "$W/negspeed.xml"
hcase table 2 "topology XML duplicate GPU dev" -- table --topo "$W/dupgpu.xml"
hcase table 2 "--topo /dev/zero" -- table --topo /dev/zero
hcase table 2 "--topo a directory" -- table --topo "$W/dir"
hcase table 2 "--topo a FIFO" -- table --topo "$W/fifo"
# long table cells
hcase explain 0 "NCCL_IB_HCA of 50,000 characters" -- explain --system dgx-h100 --env NCCL_IB_HCA="$(cat "$W/hca.txt")" -v
hcase table 0 "NCCL_IB_HCA of 50,000 characters" -- table --system dgx-h100 --env NCCL_IB_HCA="$(cat "$W/hca.txt")" --why
hcase explain 0,1 "plugin with a 60,000-character path" -- explain --system v100x4 --plugin "$W/longname.json"
hcase explain 0 "conf value of 50,000 characters" -- explain --system-file "$W/longconf.yaml"
# system, plugin and other files
hcase explain 2 "--system-file /dev/zero" -- explain --system-file /dev/zero
hcase explain 2 "--plugin /dev/zero" -- explain --system v100x4 --plugin /dev/zero
hcase explain 2 "--system-file YAML bomb" -- explain --system-file "$W/bomb.yaml"
hcase explain 2 "system file with a GPU dev whole and partitioned" -- explain --system-file "$W/dupgpu.json"
hcase explain 2 "system file of 20,000 nodes" -- explain --system-file "$W/bigsys.json"
hcase explain 2 "--count 2^61 (overflows)" -- explain --system dgx-h100 --count 2305843009213693952
hcase explain 2 "--count 2^50" -- explain --system dgx-h100 --count 1125899906842624
hcase explain 2 "--count -5" -- explain --system dgx-h100 --count -5
hcase explain 2 "--nccl 70000" -- explain --nccl 70000 --system v100x4
hcase explain 0 "--nodes 16384 (the maximum)" -- explain --system dgx-h100 --nodes 16384
# sim
hcase sim 2 "--nodes 131072" -- sim --system dgx-h100 --nodes 131072 --bytes 1MiB
hcase sim 0 "--nodes 16384 (the maximum, 131,072 ranks)" -- sim --system dgx-h100 --nodes 16384 --bytes 1MiB
hcase sim 2 "--gpus 4096" -- sim --system dgx-h100 --gpus 4096
hcase sim 2 "--gpus 0" -- sim --system dgx-h100 --gpus 0
hcase sim 0 "--gpus 72 (the maximum)" -- sim --system dgx-h100 --gpus 72 --bytes 1MiB
hcase sim 2 "--channels -4" -- sim --system dgx-h100 --channels -4 --bytes 1MiB
hcase sim 2 "--bytes 2^60" -- sim --system dgx-h100 --bytes 1152921504606846976
hcase sim 0 "--sweep with a huge factor" -- sim --system dgx-h100 --sweep 1:1GiB:9223372036854775807
# whatif
hcase whatif 2 "10 million points" -- whatif --file "$W/sweep10m.yaml" --no-progress
hcase whatif 2 "a million points" -- whatif --file "$W/sweep1m.yaml" --no-progress --format json
hcase whatif 0 "100,000 points as JSON (the maximum), cost model only" -- whatif --file "$W/sweepmax.yaml" --no-progress --no-sim --format json
hcase whatif 2 "five machines of 16,384 nodes" -- whatif --file "$W/sweepnodes.yaml" --no-progress
hcase whatif 2 "--workers -5" -- whatif --system dgx-h100 --workers -5
hcase whatif 2 "sweep file /dev/zero" -- whatif --file /dev/zero
hcase whatif 2 "sweep file YAML bomb" -- whatif --file "$W/bomb.yaml"
# group
hcase group 2 "10 MB communicator name" -- group "$W/comm10m.txt"
hcase group 2 "1,000-byte communicator name" -- group "$W/comm1k.txt"
hcase group 2 "a million nested groupStart" -- group "$W/nest1m.txt"
hcase group 1 "a call returns ncclInvalidArgument" -- group "$W/badcall.txt"
hcase group 0 "a good call script" -- group "$W/calls.txt"
hcase group 2 "group file /dev/zero" -- group /dev/zero
hcase group 2 "group file a FIFO" -- group "$W/fifo"
# env
IN="$W/envsmall.sh" hcase env 0,1 "--file - reads standard input" -- env --nccl 2.28.9 --file -
hcase env 2 "16,000 unknown variables" -- env --nccl 2.28.9 --file "$W/env16k.sh"
hcase env 0,1 "4,000 unknown variables (the maximum)" -- env --nccl 2.28.9 --file "$W/env4k.sh"
hcase env 2 "a 2 MB value" -- env --nccl 2.28.9 --file "$W/envlong.sh"
hcase env 2 "--file /dev/zero" -- env --nccl 2.28.9 --file /dev/zero
IN="$W/zero100m" hcase env 2 "--file - from 100 MB of NUL bytes" -- env --nccl 2.28.9 --file -
# oracle
IN="$W/oracle-files.jsonl" hcase oracle 0 "/dev/zero, /proc/self/status, a missing file, NCCL_GRAPH_FILE without --allow-dir" -- oracle --no-trace
IN="$W/oracle-files.jsonl" hcase oracle 0 "the same with --allow-dir" -- oracle --no-trace --allow-dir "$W/allow"
IN="$W/oracle-graph.jsonl" hcase oracle 0 "NCCL_GRAPH_FILE nchannels=65 under --allow-dir" -- oracle --no-trace --allow-dir "$W/allow"
IN="$W/oracle-longline.jsonl" hcase oracle 0 "a 70 MB line, then a good one" -- oracle --no-trace
IN="$W/oracle-trailing.jsonl" hcase oracle 0 "trailing data after the object" -- oracle --no-trace
IN="$W/oracle-huge.jsonl" hcase oracle 0 "counts 2^50 and 2^61, nodes 131072 and 2^63-1" -- oracle --no-trace
IN="$W/oracle-budget.jsonl" hcase oracle 0 "4,096 ranks (the default budget), 1 GiB" -- oracle --no-trace
IN="$W/zero100m" hcase oracle 0 "100 MB of NUL bytes, no newline" -- oracle --no-trace
IN="$W/oracle-slow.jsonl" hcase oracle 0 "a 128-GPU NVLink clique (a search of tens of seconds) under --timeout 5s, then a good line" -- oracle --no-trace --timeout 5s
IN="$W/oracle-group4k.jsonl" hcase oracle 0 "a group of 4,096 operations under --max-memory 64MiB, then a good line" -- oracle --no-trace --max-memory 64MiB
# diagnose and hw
hcase diagnose 0,1 "50 MB interleaved garbage log with bogus version lines" -- diagnose "$W/garbage.log"
hcase diagnose 2 "log /dev/zero" -- diagnose /dev/zero
hcase diagnose 2 "log a FIFO" -- diagnose "$W/fifo"
hcase hw 1 "check: graph.xml missing" -- hw check --from "$W/nograph"
hcase hw 1 "check: log cut after 8 lines" -- hw check --from "$W/cutlog"
hcase hw 1 "check: log empty" -- hw check --from "$W/emptylog"
hcase hw 0 "check: the intact capture" -- hw check --from "$CAP"
hcase hw 3 "info without a GPU" -- hw info

# --- summary --------------------------------------------------------------
echo
echo "| command | inputs | exit 0 | exit 1 | exit 2 | exit 3 | panic | internal | OOM | timeout | as expected | slowest (s) | most CPU (s) | most memory (MB) |"
echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
awk -F'\t' '{
  c=$1; n[c]++; k[c","$3]++; if ($6=="yes") ok[c]++; if ($5>slow[c]) slow[c]=$5; if ($7>mem[c]) mem[c]=$7; if ($8>cpu[c]) cpu[c]=$8
  if (!(c in seen)) { seen[c]=1; order[++m]=c }
} END {
  for (i=1;i<=m;i++) { c=order[i]
    printf "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %.1f | %.1f | %d |\n", c, n[c], k[c",exit0"], k[c",exit1"], k[c",exit2"], k[c",exit3"], k[c",panic"], k[c",internal"], k[c",oom"]+k[c",killed"], k[c",timeout"], ok[c], slow[c], cpu[c], mem[c]
    tn+=n[c]; tok+=ok[c]; tp+=k[c",panic"]+k[c",internal"]; to+=k[c",oom"]+k[c",killed"]
  }
  printf "\n%d inputs, %d as expected, %d panics or internal errors, %d out-of-memory or killed\n", tn, tok, tp, to
}' "$RES"
if [ -n "${HOSTILE_DETAIL:-}" ]; then
  echo; echo "| command | input | outcome | expected exit | seconds | CPU seconds | memory (MB) |"; echo "|---|---|---|---|--:|--:|--:|"
  awk -F'\t' '{printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $8, $7}' "$RES"
fi
exit $fail
