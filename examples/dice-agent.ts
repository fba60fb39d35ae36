import { dataPart, textPart } from 'tandem';
import { createNodeServer, createRequestHandler, defineAgent } from 'tandem/server';

const dice = defineAgent({
  card: {
    name: 'Dice',
    description: 'Rolls dice',
    skills: [
      {
        id: 'roll',
        name: 'Roll',
        description: 'Rolls NdM dice',
        tags: ['dice'],
        examples: ['2d6'],
      },
    ],
  },
  async execute(ctx) {
    const match = /^(\d*)d(\d+)$/.exec(ctx.text.trim());
    if (!match) return ctx.inputRequired('What should I roll? For example "2d6".'); // the next message resumes
    const rolls = Array.from(
      { length: Number(match[1] || 1) },
      () => 1 + Math.floor(Math.random() * Number(match[2])),
    );
    await ctx.artifact([textPart(rolls.join(' + ')), dataPart({ rolls })]);
    // Returning completes the task; throwing fails it with a safe message (the error goes to the log).
  },
});

const server = createNodeServer({
  agents: [{ path: '', handler: createRequestHandler({ agent: dice }) }],
});
const { url } = await server.listen({ port: 41241 });
console.log(`card at ${url}/.well-known/agent-card.json`);
