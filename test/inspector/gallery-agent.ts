/**
 * The agents the inspector's browser tests need besides the demo agents, in the test process on
 * loopback: `gallery` answers with every kind of artifact the Chat view renders by media type
 * (markdown with hostile HTML in it, an image, a file to download, data), and describes the
 * parts it receives; the same agent served over gRPC only (its card lists no HTTP interface).
 */

import { createNodeServer, createRequestHandler, defineAgent } from '../../src/server.js';
import { createGrpcServer } from '../../src/server-grpc.js';
import { dataPart, fileBytesPart, textPart } from '../../src/index.js';

/** A 1×1 PNG. */
const PIXEL = Uint8Array.from(
  atob(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  ),
  (c) => c.charCodeAt(0),
);

/** Markdown an agent could send to attack the page: none of it may run. */
export const HOSTILE_MARKDOWN = [
  '# Report',
  '',
  'All **good** here.',
  '',
  '<img src="x" onerror="window.__pwned = true">',
  '<script>window.__pwned = true</script>',
  '',
  '[a link](javascript:window.__pwned=true)',
].join('\n');

export const galleryAgent = defineAgent({
  card: {
    name: 'Gallery',
    description: 'Answers with artifacts of every media type',
    version: '1.0.0',
    defaultInputModes: ['text/plain', 'application/json', '*/*'],
    defaultOutputModes: ['text/markdown', 'image/png', 'application/json'],
    skills: [
      {
        id: 'gallery',
        name: 'Gallery',
        description: 'Shows artifacts',
        tags: ['test'],
        examples: ['gallery', 'parts'],
      },
    ],
  },
  async execute(ctx) {
    const command = ctx.text.trim().split(/\s+/)[0];
    if (command === 'gallery') {
      await ctx.artifact([textPart(HOSTILE_MARKDOWN, { mediaType: 'text/markdown' })], {
        name: 'markdown',
      });
      await ctx.artifact(
        [fileBytesPart(PIXEL, { mediaType: 'image/png', filename: 'pixel.png' })],
        {
          name: 'image',
        },
      );
      await ctx.artifact(
        [
          fileBytesPart(new TextEncoder().encode('%PDF-1.4'), {
            mediaType: 'application/pdf',
            filename: 'report.pdf',
          }),
        ],
        { name: 'download' },
      );
      await ctx.artifact([dataPart({ score: 42, nested: { deep: [1, 2, 3] } })], { name: 'data' });
      return ctx.complete();
    }
    // Anything else: say what arrived, part by part.
    const described = ctx.message.parts.map((part) => {
      if (part.text !== undefined) return `text: ${part.text}`;
      if (part.raw !== undefined) {
        return `file ${part.filename} ${part.mediaType} ${atob(part.raw).length} bytes`;
      }
      if (part.url !== undefined) return `url ${part.url}`;
      return `data ${JSON.stringify(part.data)}`;
    });
    await ctx.artifact(described.join('\n'), { name: 'received' });
    return ctx.complete();
  },
});

/** The gallery agent at `/gallery`, and at `/grpc-only` over gRPC alone. */
export interface GalleryServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startGallery(): Promise<GalleryServer> {
  const handler = createRequestHandler({ agent: galleryAgent });
  const grpcHandler = createRequestHandler({
    agent: { ...galleryAgent, card: { ...galleryAgent.card, name: 'Gallery over gRPC' } },
  });
  const grpc = createGrpcServer({ agents: [{ path: '/grpc-only', handler: grpcHandler }] });
  await grpc.listen({ port: 0, host: '127.0.0.1' });
  const http = createNodeServer({
    agents: [
      { path: '/gallery', handler },
      {
        path: '/grpc-only',
        handler: grpcHandler,
        bindings: [],
        interfaces: grpc.interfacesOf('/grpc-only'),
      },
    ],
  });
  const { url } = await http.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: url.replace(/\/+$/, ''),
    close: async () => {
      await Promise.all([
        http.shutdown({ deadlineMs: 1_000 }),
        grpc.shutdown({ deadlineMs: 1_000 }),
      ]);
    },
  };
}
