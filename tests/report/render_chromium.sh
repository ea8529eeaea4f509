#!/bin/bash
# Render every golden HTML report, and the HTML report of the public DLRM
# traces (8 ranks) when ../shared/data/public exists, in headless Chromium:
# no console error, the sorting script ran (every header became
# focusable), and screenshots (WORK_DIR/*.png, for people); then
# clicking headers sorts the rows by their exact values, both ways.
#
#   render_chromium.sh PROFDB TESTS_DIR WORK_DIR PUBLIC_DATA_DIR
#
# Exit 77 (skipped) when chromium is not installed.
set -u
profdb=$1 tests=$2 work=$3 public=$4
browser=$(command -v chromium || command -v chromium-browser) || {
  echo "chromium is not installed: skipped"; exit 77; }
rm -rf "$work"
mkdir -p "$work"
status=0
pages=("$tests"/report/golden/*.html)
dlrm=$public/facebookresearch__param/dlrm_kineto
if [ -d "$dlrm" ]; then
  "$profdb" report "$dlrm" --html "$work/dlrm.html" --md "$work/dlrm.md" >/dev/null ||
    { echo "FAIL: profdb report on $dlrm"; exit 1; }
  pages+=("$work/dlrm.html")
fi
for page in "${pages[@]}"; do
  name=$(basename "$page" .html)
  # No network: every host resolves to nothing, so a reference outside the
  # file would fail (and log an error) rather than be fetched.
  flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run
         --host-resolver-rules="MAP * ~NOTFOUND" --enable-logging=stderr --v=0)
  timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$page" >"$work/$name.dom" \
    2>"$work/$name.log"
  rc=$?
  [ $rc = 0 ] || { echo "FAIL: $name: chromium exit code $rc"; status=1; continue; }
  if grep -E "CONSOLE|Uncaught|net::ERR" "$work/$name.log" >"$work/$name.errors"; then
    echo "FAIL: $name: console messages:"; cat "$work/$name.errors"; status=1
  fi
  headers=$(grep -o '<th[ >]' "$work/$name.dom" | wc -l)
  focusable=$(grep -o '<th[^>]*tabindex="0"' "$work/$name.dom" | wc -l)
  if [ "$headers" != "$focusable" ]; then
    echo "FAIL: $name: the script did not run ($focusable of $headers headers sortable)"
    status=1
  fi
  # Screenshots of the largest pages (every page with PROFDB_SCREENSHOTS=1):
  # each costs a browser start, and the machine may be busy.
  case $name in full|diff_full|dlrm) shoot=1 ;; *) shoot=${PROFDB_SCREENSHOTS:-0} ;; esac
  if [ "$shoot" = 1 ]; then
    timeout 120 "$browser" "${flags[@]}" --window-size=1280,2400 \
      --screenshot="$work/$name.png" "file://$page" >/dev/null 2>&1 ||
      { echo "FAIL: $name: no screenshot"; status=1; }
  fi
  echo "rendered $name: $headers sortable headers"
done
# Sorting works: in a copy of a report, click the first numeric header of
# every table (ascending), then again (descending), and check the order of
# the exact values; the verdict goes into the page title.
page=$tests/report/golden/full.html
cp "$page" "$work/sort.html"
cat >> "$work/sort.html" <<'JS'
<script>
var bad = 0, tables = 0;
document.querySelectorAll('table.sortable').forEach(function (t) {
  var th = t.querySelector('th.num');
  if (!th) return;
  tables++;
  var values = function () {
    return Array.prototype.map.call(t.tBodies[0].rows, function (r) {
      var v = r.cells[th.cellIndex].getAttribute('data-v');
      return v === '' ? -Infinity : parseFloat(v);
    });
  };
  th.click();
  var up = values();
  th.click();
  var down = values();
  for (var i = 1; i < up.length; i++) {
    if (up[i - 1] > up[i] || down[i - 1] < down[i]) bad++;
  }
});
document.title = 'sorted ' + tables + ' tables, ' + bad + ' out of order';
</script>
JS
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --dump-dom "file://$work/sort.html" \
  >"$work/sort.dom" 2>/dev/null
verdict=$(grep -o '<title>[^<]*</title>' "$work/sort.dom")
case $verdict in
  "<title>sorted "*" tables, 0 out of order</title>") echo "sorting: $verdict" ;;
  *) echo "FAIL: sorting: $verdict"; status=1 ;;
esac
exit $status
