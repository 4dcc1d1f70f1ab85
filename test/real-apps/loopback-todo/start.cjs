'use strict';
// Starts LoopBack 4's published todo example (@loopback/example-todo) on 127.0.0.1 as its own `npm start`
// does (src/index.ts: main() with setServersFromRequest), with two differences that keep it on this
// machine and repeatable:
//   - its seed data (data/db.json, four todos) is copied into the working directory first, so the
//     package's own file is never written;
//   - its geocoder (a REST data source calling a US census web service whenever a todo has a
//     remindAtAddress) is pointed at a stand-in on 127.0.0.1 that finds every address.
//   usage: node start.cjs INSTALL_DIR PORT   (cwd: a scratch directory)
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');

const [installDir, port] = process.argv.slice(2);
const pkg = path.join(installDir, 'node_modules/@loopback/example-todo');

fs.mkdirSync('data', { recursive: true });
fs.copyFileSync(path.join(pkg, 'data/db.json'), 'data/db.json');

const geocoder = http.createServer((req, res) => {
  req.resume();
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ result: { addressMatches: [{ coordinates: { x: -77.0365, y: 38.8977 } }] } }));
});

geocoder.listen(0, '127.0.0.1', () => {
  const { TodoListApplication } = require(pkg);
  const { GeocoderDataSource } = require(path.join(pkg, 'dist/datasources'));
  const defaults = GeocoderDataSource.defaultConfig;
  const config = {
    ...defaults,
    operations: defaults.operations.map((op) => ({
      ...op,
      template: { ...op.template, url: `http://127.0.0.1:${geocoder.address().port}/geocoder/locations/onelineaddress` },
    })),
  };
  const app = new TodoListApplication({
    rest: { port: Number(port), host: '127.0.0.1', gracePeriodForClose: 0, openApiSpec: { setServersFromRequest: true } },
  });
  app.bind('datasources.config.geocoder').to(config);
  app
    .boot()
    .then(() => app.start())
    .then(() => console.log(`Server is running at ${app.restServer.url}`))
    .catch((err) => {
      console.error('Cannot start the application.', err);
      process.exit(1);
    });
});
