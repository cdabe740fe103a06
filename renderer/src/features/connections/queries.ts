// The connections feature's query keys and the queries its components share. The list is the
// family's root key, so a save invalidates it `exact` and leaves the catalogue alone.
import { useQuery } from '@tanstack/react-query';
import { connectorApi } from './api.js';

export const connectorKeys = {
  all: ['connectors'] as const,
  list: ['connectors'] as const,
  catalogue: ['connectors', 'catalogue'] as const,
};

/** While a connector waits for its first health check, the list is asked again this often. */
const CHECKING_REFETCH_MS = 5000;

export const useConnectorCatalogue = () =>
  useQuery({ queryKey: connectorKeys.catalogue, queryFn: connectorApi.catalogue });

export const useConnectorList = () =>
  useQuery({
    queryKey: connectorKeys.list,
    queryFn: connectorApi.list,
    // Only while one waits for its first health check ("checking…").
    refetchInterval: (q) =>
      q.state.data?.connectors.some((c) => c.last_health === null && c.problem === null) === true
        ? CHECKING_REFETCH_MS
        : false,
  });
