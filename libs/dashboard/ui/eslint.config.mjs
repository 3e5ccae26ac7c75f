import angularConfig from '../../../eslint.angular.mjs';
import baseConfig from '../../../eslint.config.mjs';

export default [...angularConfig, ...baseConfig];
