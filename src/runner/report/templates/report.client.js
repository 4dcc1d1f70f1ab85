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

  function apply() {
    var outcomes = selectedOutcomes();
    var group = groupSelect.value;
    var text = search.value.trim().toLowerCase();
    var visible = 0;
    rows.forEach(function (row) {
      var show =
        (outcomes[row.getAttribute('data-outcome')] === true || (problemsPreset && row.hasAttribute('data-warnings'))) &&
        (group === '' || row.getAttribute('data-group') === group) &&
        (text === '' || (row.getAttribute('data-search') || '').indexOf(text) !== -1);
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
  Array.prototype.forEach.call(document.querySelectorAll('button.copy'), function (button) {
    button.addEventListener('click', function () {
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
    });
  });
})();
