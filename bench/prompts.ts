// Generated English-like prompts for the cache benches: 20 templates filled with random words, names,
// cities and numbers, from a seeded generator so two runs see the same prompts.

const words = (s: string) => s.split(' ');
const VOCAB: Record<string, string[]> = {
  noun: words(
    'invoice account password router database table query server bucket file folder image photo video song ' +
      'playlist recipe cake salad soup garden tomato plant dog cat horse bike car engine battery charger laptop ' +
      'phone screen keyboard printer meeting calendar budget report spreadsheet chart contract lease mortgage ' +
      'loan tax refund flight hotel ticket passport visa train bus map museum beach mountain river lake forest ' +
      'essay poem story novel chapter letter resume interview salary promotion manager team project deadline ' +
      'bug feature release branch commit test function class variable loop array string regex api endpoint ' +
      'token cookie session cache queue worker thread process container cluster kernel driver firmware backup ' +
      'warranty refund subscription order package delivery shipment customer supplier product price discount',
  ),
  verb: words(
    'fix install update delete rename export import convert merge split sort filter reset restore encrypt ' +
      'compress deploy debug test refactor optimize schedule cancel book translate summarize explain compare ' +
      'describe review write draft rewrite shorten format validate parse measure estimate calculate clean ' +
      'paint repair replace connect configure migrate monitor share sync upload download print scan',
  ),
  adj: words(
    'quick simple cheap secure slow broken new old large small healthy spicy vegan formal friendly polite ' +
      'urgent short detailed funny serious modern classic quiet noisy remote local private public weekly ' +
      'monthly annual free premium safe legal reliable portable wireless cloudy sunny rainy cold warm',
  ),
  name: words(
    'Alice Bob Carol David Emma Frank Grace Henry Irene Jack Karen Liam Maria Noah Olivia Peter Quinn Rosa ' +
      'Sam Tina Umar Vera Walter Xena Yusuf Zoe Ahmed Bianca Chen Dmitri Elena Fatima Giorgio Hana Ivan Julia',
  ),
  city: words(
    'Paris London Berlin Madrid Rome Lisbon Vienna Prague Warsaw Oslo Dublin Athens Cairo Nairobi Lagos Tokyo ' +
      'Osaka Seoul Beijing Shanghai Delhi Mumbai Sydney Melbourne Auckland Toronto Montreal Chicago Boston Denver Austin Lima',
  ),
  lang: words('Python JavaScript TypeScript Rust Go Java Kotlin Swift Ruby PHP C++ Haskell Elixir Scala SQL Bash'),
  language: words('French German Spanish Italian Portuguese Dutch Polish Japanese Korean Chinese Hindi Arabic Turkish'),
  month: words('January February March April May June July August September October November December'),
  unit: words('miles kilometers pounds kilograms liters gallons inches centimeters celsius fahrenheit ounces grams'),
  topic: words(
    'photosynthesis inflation recursion gravity vaccines blockchain democracy evolution entropy tides ' +
      'compound_interest black_holes neural_networks supply_chains plate_tectonics the_immune_system',
  ),
};

const TEMPLATES = [
  'How do I {verb} a {noun} in {lang}?',
  'What is the difference between a {noun} and a {noun} in {lang}?',
  'Write a {adj} email to {name} about the {noun} for order {num}.',
  'Summarize the {adj} {noun} report for {month} {year}.',
  'Translate "the {adj} {noun} is {adj}" into {language}.',
  'Give me {small} ideas for a {adj} {noun} in {city}.',
  'Why does my {noun} {verb} itself when I {verb} the {noun}?',
  'Explain {topic} to a {small}-year-old.',
  'Fix this error: cannot {verb} {noun} at line {num} in {noun}.{lang}',
  'What is {num} times {num}?',
  'Is {num} a prime number?',
  'Plan a {small}-day trip to {city} with a budget of {num} dollars.',
  'Convert {num} {unit} to {unit}.',
  'Write a haiku about a {adj} {noun}.',
  'Customer {name} asks: where is my order #{num}? It was due on {month} {day}.',
  'Draft a reply to ticket {num}: the {noun} is {adj} and the {noun} will not {verb}.',
  'List the {small} most {adj} {noun}s in {city}.',
  'Write a SQL query that selects every {noun} where {noun}_id = {num}.',
  'Can you {verb} my {noun} and {verb} the {adj} {noun} before {month} {day}?',
  'You are a {adj} assistant. {name} wants to {verb} the {noun} in {city}; what should {name} do first?',
];

export function makePrompter(next: () => number): () => string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
  const fill = (slot: string): string => {
    if (slot === 'num') return String(Math.floor(next() * 100_000));
    if (slot === 'small') return String(2 + Math.floor(next() * 9));
    if (slot === 'year') return String(2015 + Math.floor(next() * 12));
    if (slot === 'day') return String(1 + Math.floor(next() * 28));
    return pick(VOCAB[slot]).replaceAll('_', ' ');
  };
  return () => pick(TEMPLATES).replace(/\{(\w+)\}/g, (_, slot: string) => fill(slot));
}
