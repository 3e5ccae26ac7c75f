// Chart.js with only what a stacked bar chart needs, registered once. Loaded with `import()` by the
// traffic chart, so it is a chunk of its own (importing 'chart.js' itself that way would keep all of it).
import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip } from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

export { Chart };
