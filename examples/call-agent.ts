import { createClient, textOf } from 'tandem/client';

const agent = await createClient('http://127.0.0.1:41241/agents/dice');
const answer = await agent.send('roll 2d6'); // the final (or interrupted) task, or a message
console.log(textOf(answer));

const echo = await createClient('http://127.0.0.1:41241/agents/echo');
for await (const event of echo.sendStreamingMessage({
  message: { parts: [{ text: 'stream 5 8' }] }, // five chunks of eight characters
})) {
  console.log(event); // task, statusUpdate, artifactUpdate... — break to close the connection
}

const chat = agent.conversation(); // keeps the contextId, continues tasks that ask for input
await chat.send('roll banana'); // the dice agent asks what to roll
await chat.send('3d8'); // ...and this continues that task
