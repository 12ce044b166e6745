#!/usr/bin/env python3
"""A copy of a page with a script appended that writes, into <pre id="computed-styles">,
the computed text colour and the background of every .state element and of each of its
ancestors (innermost first): what check_page.py contrast reads. The report itself has no
script; only this test copy does.

  style_probe.py PAGE.html COPY.html
"""
import sys
page = open(sys.argv[1], encoding="utf-8").read()
script = """<script>
(function () {
  var out = [];
  document.querySelectorAll('.state').forEach(function (el) {
    var layers = [];
    for (var e = el; e; e = e.parentElement) layers.push(getComputedStyle(e).backgroundColor);
    out.push({class: el.className, text: el.textContent, color: getComputedStyle(el).color, backgrounds: layers});
  });
  var pre = document.createElement('pre');
  pre.id = 'computed-styles';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""
if page.count("</body>") != 1:
    sys.exit("the page has no single </body>")
open(sys.argv[2], "w", encoding="utf-8").write(page.replace("</body>", script + "</body>"))
