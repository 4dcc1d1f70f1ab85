// A second pack, written outside the engine: the notes API with its own profile, provider state and reference
// deployment. Loaded with `conformance --pack test/packs/notes/pack.mjs`.
import { fileURLToPath } from 'node:url';
import { startNotesServer } from './server.mjs';

const here = (file) => fileURLToPath(new URL(file, import.meta.url));

export default {
  name: 'notes',
  title: 'the notes API',
  services: ['notes'],
  contracts: [here('./notes.openapi.yaml')],
  profile: here('./profile.yaml'),
  pacts: here('./pacts'),
  baseUrlOptions: [{ flag: '--notes-base-url', service: 'notes', description: 'notes API base URL' }],
  async providerStates() {
    return {
      notes: (api) => {
        const created = [];
        return {
          'a note exists': {
            async setup() {
              const res = await api.call('POST', '/notes', { text: 'from a provider state' });
              if (res.status !== 201) throw new Error(`could not create a note: POST /notes answered ${res.status}`);
              created.push(res.json.id);
              return { noteId: res.json.id };
            },
            async teardown() {
              const id = created.pop();
              if (id) await api.call('DELETE', `/notes/${id}`);
            },
          },
        };
      },
    };
  },
  async startReference({ token }) {
    const server = await startNotesServer({ token });
    return { baseUrls: { notes: server.baseUrl }, close: () => server.close() };
  },
};
