(function () {
  'use strict';
  // Filters, expand/collapse and copy for the conformance report. Reads data-* attributes only; never
  // evaluates page content. Without this script every operation is simply shown.
  var toolbar = document.getElementById('toolbar');
  if (!toolbar) return;
  toolbar.hidden = false;

  var rows = Array.prototype.slice.call(document.querySelectorAll('details.op'));
  var groups = Array.prototype.slice.call(document.querySelectorAll('section.group'));
  var buttons = Array.prototype.slice.call(toolbar.querySelectorAll('button.filter'));
  var groupSelect = document.getElementById('group-filter');
  var search = document.getElementById('search');
  var shown = document.getElementById('shown');
  var noRows = document.getElementById('no-rows');
  var PROBLEMS = ['failed', 'missing', 'flaky', 'errored', 'untested'];
  // The Problems preset also shows operations with warnings, whatever their outcome.
  var problemsPreset = false;

  function setPressed(button, pressed) {
    button.setAttribute('aria-pressed', pressed ? 'true' : 'false');
  }

  function selectedOutcomes() {
    var set = {};
    buttons.forEach(function (b) {
      if (b.getAttribute('aria-pressed') === 'true') set[b.getAttribute('data-outcome')] = true;
    });
    return set;
  }

  // A large run's rows carry no data-group: their section says it.
  function groupOf(row) {
    var group = row.getAttribute('data-group');
    if (group === null) {
      var section = row.closest('section.group');
      group = section ? section.getAttribute('data-group') || '' : '';
      row.setAttribute('data-group', group);
    }
    return group;
  }

  // A large run's rows carry no data-search: their summary line says the same.
  function searchText(row) {
    var text = row.getAttribute('data-search');
    if (text === null) {
      text = (row.querySelector('summary').textContent + ' ' + groupOf(row)).toLowerCase();
      row.setAttribute('data-search', text);
    }
    return text;
  }

  function apply() {
    var outcomes = selectedOutcomes();
    var group = groupSelect.value;
    var text = search.value.trim().toLowerCase();
    var visible = 0;
    rows.forEach(function (row) {
      var show =
        (outcomes[row.getAttribute('data-outcome')] === true || (problemsPreset && row.hasAttribute('data-warnings'))) &&
        (group === '' || groupOf(row) === group) &&
        (text === '' || searchText(row).indexOf(text) !== -1);
      row.hidden = !show;
      if (show) visible += 1;
    });
    groups.forEach(function (section) {
      section.hidden = section.querySelector('details.op:not([hidden])') === null;
    });
    shown.textContent = 'Showing ' + visible + ' of ' + rows.length + ' operations';
    noRows.hidden = visible !== 0;
  }

  buttons.forEach(function (button) {
    button.addEventListener('click', function () {
      setPressed(button, button.getAttribute('aria-pressed') !== 'true');
      problemsPreset = false;
      apply();
    });
  });
  toolbar.querySelector('[data-filter-preset="all"]').addEventListener('click', function () {
    buttons.forEach(function (b) { setPressed(b, true); });
    problemsPreset = false;
    apply();
  });
  toolbar.querySelector('[data-filter-preset="problems"]').addEventListener('click', function () {
    buttons.forEach(function (b) { setPressed(b, PROBLEMS.indexOf(b.getAttribute('data-outcome')) !== -1); });
    problemsPreset = true;
    apply();
  });
  groupSelect.addEventListener('change', apply);
  search.addEventListener('input', apply);
  document.getElementById('expand-all').addEventListener('click', function () {
    rows.forEach(function (row) { if (!row.hidden) row.open = true; });
  });
  document.getElementById('collapse-all').addEventListener('click', function () {
    rows.forEach(function (row) { row.open = false; });
  });

  // Not-described operations are hidden at first when anything was tested (they can be hundreds).
  var anyDescribed = rows.some(function (row) { return row.getAttribute('data-outcome') !== 'not-described'; });
  if (anyDescribed) {
    buttons.forEach(function (b) { if (b.getAttribute('data-outcome') === 'not-described') setPressed(b, false); });
  }
  // A link to an operation (#op-...) shows and opens it whatever the filters say.
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id ? document.getElementById(id) : null;
    if (target && target.matches('details.op')) {
      buttons.forEach(function (b) { if (b.getAttribute('data-outcome') === target.getAttribute('data-outcome')) setPressed(b, true); });
      apply();
      target.open = true;
      target.scrollIntoView();
    }
  }
  window.addEventListener('hashchange', reveal);
  apply();
  reveal();

  // Copy buttons: the clipboard API when allowed, else select the text so the user can press Ctrl+C.
  function selectText(element) {
    var range = document.createRange();
    range.selectNodeContents(element);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  // One listener for every copy button, also those of details rendered later (a large run's page).
  document.addEventListener('click', function (event) {
    var button = event.target && event.target.closest ? event.target.closest('button.copy') : null;
    if (!button) return;
    (function () {
      var source = document.getElementById(button.getAttribute('data-copy'));
      if (!source) return;
      var text = source.textContent || '';
      function done(label) {
        button.textContent = label;
        button.classList.add('copied');
        setTimeout(function () { button.textContent = 'Copy'; button.classList.remove('copied'); }, 2000);
      }
      function fallback() {
        selectText(source);
        done('Selected: press Ctrl+C');
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () { done('Copied'); }, fallback);
      } else {
        fallback();
      }
    })();
  });

  // A large run's page carries each operation's details as data (gzip, base64, never executed) and renders
  // them when its row is opened: elements and textContent only, so no text from the run is read as HTML.
  var dataElement = document.getElementById('report-data');
  if (!dataElement) return;
  var loaded = null;
  function loadDetails() {
    if (!loaded) {
      var binary = atob((dataElement.textContent || '').trim());
      var bytes = new Uint8Array(binary.length);
      for (var i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
      var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
      loaded = new Response(stream).text().then(function (text) { return JSON.parse(text); });
    }
    return loaded;
  }
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function add(parent, child) {
    parent.appendChild(child);
    return child;
  }
  var copyCounter = 0;
  function copyBlock(parent, label, hint, text, extraClass) {
    var box = add(parent, el('div', 'curl' + (extraClass ? ' ' + extraClass : '')));
    var head = add(box, el('div', 'curl-head'));
    add(head, el('span', 'label', label));
    head.appendChild(document.createTextNode(' '));
    add(head, el('span', 'hint', hint));
    head.appendChild(document.createTextNode(' '));
    copyCounter += 1;
    var id = 'lazy-copy-' + copyCounter;
    var button = add(head, el('button', 'copy', 'Copy'));
    button.type = 'button';
    button.setAttribute('data-copy', id);
    var code = add(add(box, el('pre')), el('code', null, text));
    code.id = id;
  }
  function httpBlock(parent, firstLine, headers) {
    var pre = add(parent, el('pre', 'http'));
    add(pre, el('span', 'hl line', firstLine));
    headers.forEach(function (h) {
      var line = add(pre, el('span', 'hl'));
      add(line, el('span', 'hn', h[0]));
      line.appendChild(document.createTextNode(': ' + h[1]));
    });
  }
  function bodyBlock(parent, body, className) {
    add(parent, el('pre', 'body ' + className, body.text));
    if (body.note) add(parent, el('p', 'note', body.note));
  }
  function renderFinding(parent, f) {
    var box = add(parent, el('div', 'finding e-' + f.effect));
    var head = add(box, el('div', 'finding-head'));
    add(head, el('span', 'sev sev-' + f.severity, f.severity));
    if (f.waived) add(head, el('span', 'tag s-waived', 'waived until ' + f.waived.expires));
    add(head, el('code', 'check-id', f.check));
    if (f.faultCode !== undefined) add(head, el('span', 'tag', 'WFC ' + f.faultCode)).title = 'Web Fuzzing Commons fault category';
    add(box, el('p', 'message', f.message));
    if (f.waived) add(box, el('p', 'waiver-reason', 'Waiver: ' + f.waived.reason));
    if (f.expected !== undefined || f.actual !== undefined) {
      var diff = add(box, el('div', 'diff' + (f.expected === undefined || f.actual === undefined ? ' single' : '')));
      [['Expected', 'expected', f.expected], ['Actual', 'actual', f.actual]].forEach(function (part) {
        if (part[2] === undefined) return;
        var cell = add(diff, el('div'));
        add(cell, el('div', 'diff-label', part[0]));
        add(cell, el('pre', part[1], part[2]));
      });
    }
    if (f.schemaErrors && f.schemaErrors.length > 0) {
      var table = add(box, el('table', 'plain schema-errors'));
      var headRow = add(add(table, el('thead')), el('tr'));
      ['Instance path', 'Problem', 'Expected (schema)', 'Actual value', 'Schema path'].forEach(function (t) { add(headRow, el('th', null, t)); });
      var tbody = add(table, el('tbody'));
      f.schemaErrors.forEach(function (e) {
        var row = add(tbody, el('tr'));
        add(add(row, el('td')), el('code', null, e.instancePath));
        add(row, el('td', null, e.message));
        add(add(row, el('td')), el('code', 'expected', e.expected || ''));
        add(add(row, el('td')), el('code', 'actual', e.actual || ''));
        add(add(row, el('td')), el('code', null, e.schemaPath));
      });
    }
    var where = add(box, el('p', 'where'));
    var request = add(where, el('span', null, 'Request '));
    add(request, el('code', null, f.request));
    if (f.answered !== undefined) {
      where.appendChild(document.createTextNode(' '));
      var answered = add(where, el('span', null, 'answered '));
      add(answered, el('code', null, 'HTTP ' + f.answered));
    }
    if (f.specLocation) {
      where.appendChild(document.createTextNode(' '));
      var spec = add(where, el('span', null, 'Contract '));
      add(spec, el('code', 'spec', f.specLocation));
    }
    if (f.curl) copyBlock(box, 'Reproduce this finding', (f.needsRecord ? 'it names a record the run made first (deleted since): alone it no longer answers as in the run; ' : '') + 'export CONFORMANCE_TOKEN first', f.curl);
  }
  function renderCase(parent, c) {
    var article = add(parent, el('article', 'case o-' + c.outcome));
    var h = add(article, el('h4'));
    add(h, el('span', 'badge o-' + c.outcome, c.outcome));
    h.appendChild(document.createTextNode(' ' + c.name + ' '));
    add(h, el('span', 'kind', c.kind));
    add(h, el('span', 'time', c.duration));
    if (c.skipReason) add(article, el('p', 'skip-reason', 'Skipped: ' + c.skipReason));
    (c.notes || []).forEach(function (n) { add(article, el('p', 'skip-reason', n)); });
    if (c.errorMessage) add(article, el('p', 'error-message', "Tool or network error (not the service's fault): " + c.errorMessage));
    var notPassed = (c.checks || []).filter(function (k) { return k.status !== 'passed'; });
    if (notPassed.length > 0) {
      var checks = add(article, el('p', 'case-checks'));
      notPassed.forEach(function (k) { add(checks, el('span', 'tag s-' + k.status, k.id + ': ' + k.status)); });
    }
    (c.findings || []).forEach(function (f) { renderFinding(article, f); });
    (c.exchanges || []).forEach(function (e) {
      var box = add(article, el('details', 'exchange'));
      if (c.outcome !== 'passed') box.open = true;
      var summary = add(box, el('summary', null, e.title));
      if (e.responseStatus !== undefined) {
        summary.appendChild(document.createTextNode(' · '));
        add(summary, el('span', 'status-code', 'HTTP ' + e.responseStatus));
      }
      if (e.error) {
        summary.appendChild(document.createTextNode(' · '));
        add(summary, el('span', 'transport-error', e.error));
      }
      var body = add(box, el('div', 'exchange-body'));
      var req = add(body, el('div', 'req'));
      add(req, el('div', 'label', 'Request'));
      httpBlock(req, e.requestLine, e.requestHeaders || []);
      if (e.requestBody) bodyBlock(req, e.requestBody, 'request-body');
      var res = add(body, el('div', 'res'));
      add(res, el('div', 'label', 'Response'));
      if (e.responseStatus !== undefined) {
        httpBlock(res, 'HTTP ' + e.responseStatus, e.responseHeaders || []);
        if (e.responseBody) bodyBlock(res, e.responseBody, 'response-body');
        else add(res, el('p', 'note', '(empty body)'));
      } else {
        add(res, el('p', 'note', 'No response: ' + (e.error || 'none recorded')));
      }
    });
    if (c.reproduction) {
      copyBlock(article, 'Reproduce the whole chain', 'bash script: creates what the call needs, makes the call, deletes what it created; export CONFORMANCE_TOKEN first', c.reproduction, 'reproduction');
    } else if (c.curl) {
      copyBlock(article, 'Reproduce', 'export CONFORMANCE_TOKEN first', c.curl);
    }
  }
  function renderOperation(body, op) {
    var meta = el('p', 'op-meta');
    var service = add(meta, el('span', null, 'service '));
    add(service, el('code', null, op.service));
    meta.appendChild(document.createTextNode(' '));
    var operation = add(meta, el('span', null, 'operation '));
    add(operation, el('code', null, op.operationId));
    body.insertBefore(meta, body.firstChild);
    if (op.outcome === 'missing') {
      var missing = add(body, el('p', 'missing-note'));
      add(missing, el('strong', null, 'Missing:'));
      missing.appendChild(document.createTextNode(' the deployment does not serve this operation (it answered the way a gateway answers an unknown route).'));
    }
    if (op.outcome === 'not-described') {
      var nd = add(body, el('p', 'nd-note'));
      add(nd, el('strong', null, 'Not described:'));
      nd.appendChild(document.createTextNode(' ' + (op.reason || 'the catalog lists this operation; the contract does not describe it, so it was not tested.')));
    }
    if (op.checks && op.checks.length > 0) {
      var list = add(body, el('ul', 'check-list'));
      op.checks.forEach(function (k) {
        var item = add(list, el('li', 'check s-' + k.status));
        add(item, el('span', 'dot s-' + k.status));
        add(item, el('code', null, k.id));
        item.appendChild(document.createTextNode(' '));
        add(item, el('span', 'status', k.status));
      });
    }
    (op.cases || []).forEach(function (c) { renderCase(body, c); });
    if (op.summaries && op.summaries.length > 0) {
      var summaries = add(body, el('ul', 'case-summary'));
      op.summaries.forEach(function (s) {
        var item = add(summaries, el('li', 'o-' + s.outcome));
        add(item, el('span', 'badge o-' + s.outcome, s.outcome));
        item.appendChild(document.createTextNode(' ' + s.count + ' case' + (s.count === 1 ? '' : 's')));
        if (s.reason) {
          item.appendChild(document.createTextNode(': '));
          add(item, el('span', 'skip-reason', s.reason));
        }
        item.appendChild(document.createTextNode(' '));
        add(item, el('span', 'names', '(' + s.names + ')'));
      });
    }
  }
  function show(row) {
    if (!row.open || row.hasAttribute('data-rendered')) return;
    row.setAttribute('data-rendered', 'loading');
    var body = row.querySelector('.op-body');
    if (!body) body = add(row, el('div', 'op-body'));
    loadDetails().then(function (all) {
      renderOperation(body, all[Number(row.getAttribute('data-op'))] || {});
      row.setAttribute('data-rendered', 'true');
    }, function (error) {
      row.removeAttribute('data-rendered');
      add(body, el('p', 'error-message', 'The details could not be read in this browser (' + error + '); results.json has them.'));
    });
  }
  rows.forEach(function (row) {
    if (!row.hasAttribute('data-op')) return;
    row.addEventListener('toggle', function () { show(row); });
    show(row);
  });
})();
