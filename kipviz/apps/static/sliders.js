// kipviz static sliders: move a dashboard's controls over a grid Spark computed when the page
// was built (kipviz.static.sliders). No kernel, no network: each position's trace data is in the
// page as JSON; this maps the controls' positions to it and redraws with Plotly.react.
function kipvizSliders(section) {
  "use strict";
  var spec = JSON.parse(section.querySelector("script.kipviz-grid-data").textContent);
  var plot = document.getElementById(section.getAttribute("data-figure"));
  var controls = section.querySelector(".kipviz-controls");
  var message = section.querySelector(".kipviz-grid-message");
  var summary = section.querySelector(".kipviz-grid-summary");
  var at = spec.axes.map(function (axis) { return axis.start; });
  var revision = 0;

  function draw(redraw) {
    var key = at.join("-");
    var point = spec.points[key];
    if (!point) {  // a combination Kafka rejects: say why, keep the last good curves
      message.textContent = spec.rejected[key] || "not on the grid";
      section.setAttribute("data-position", key + " rejected");
      return;
    }
    message.textContent = "";
    summary.innerHTML = point.summary;
    section.setAttribute("data-position", key);
    if (!redraw) { return; }
    var data = plot.data.map(function (trace, i) {
      return Object.assign({}, trace, point.traces[i]);
    });
    revision += 1;
    var layout = Object.assign({}, plot.layout, {datarevision: revision});
    Plotly.react(plot, data, layout);
  }

  spec.axes.forEach(function (axis, i) {
    var label = document.createElement("label");
    var name = document.createElement("span");
    name.className = "kipviz-setting";
    name.textContent = axis.label;
    var input = document.createElement("input");
    input.type = "range";
    input.min = "0";
    input.max = String(axis.values.length - 1);
    input.step = "1";
    input.value = String(axis.start);
    input.setAttribute("data-axis", axis.name);
    input.setAttribute("aria-label", axis.label);
    var shown = document.createElement("output");
    shown.textContent = axis.values[axis.start];
    input.addEventListener("input", function () {
      at[i] = Number(input.value);
      shown.textContent = axis.values[at[i]];
      draw(true);
    });
    label.appendChild(name);
    label.appendChild(input);
    label.appendChild(shown);
    controls.appendChild(label);
  });
  draw(false);
}
